import type * as Spi from '../storage/spi/memory-backend.js'
import { MEMORY_OPERATION_NAMES } from '../storage/spi/memory-backend.js'

/** A class whose instances answer every SPI memory operation by calling the given backend. */
type DelegatingClass = abstract new (backend: Spi.MemoryBackend) => Spi.MemoryOperationMethods

/**
 * The one delegation path of the runtime: a base class with a method per name of
 * `MEMORY_OPERATION_NAMES`, each passing its arguments to the backend's method of that name and
 * returning its promise unchanged. So an SPI operation reaches every surface through the runtime
 * without being restated here.
 */
export const BackendDelegation: DelegatingClass = (() => {
  abstract class Delegation {
    readonly #backend: Spi.MemoryBackend
    constructor(backend: Spi.MemoryBackend) {
      this.#backend = backend
    }
    static {
      for (const name of MEMORY_OPERATION_NAMES) {
        Object.defineProperty(Delegation.prototype, name, {
          configurable: true,
          writable: true,
          value: function (this: Delegation, ...args: unknown[]): unknown {
            const method = this.#backend[name] as (...a: unknown[]) => unknown
            return method.apply(this.#backend, args)
          },
        })
      }
    }
  }
  // The methods are installed above, one per operation name; TypeScript cannot see them.
  return Delegation as unknown as DelegatingClass
})()
