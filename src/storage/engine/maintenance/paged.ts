/**
 * Every item of a keyset-paged read: `page(after)` returns up to `size` items in key order and
 * `keyOf` gives the key to continue after.
 */
export async function* paged<T, K>(
  start: K,
  size: number,
  page: (after: K, limit: number) => Promise<T[]>,
  keyOf: (item: T) => K,
): AsyncGenerator<T> {
  for (let after = start; ;) {
    const items = await page(after, size)
    yield* items
    const last = items.at(-1)
    if (last === undefined || items.length < size) return
    after = keyOf(last)
  }
}
