/**
 * A request body as a JSON value. A body holding more values than any valid request needs is
 * refused from its bytes before it is parsed (a capture's bound is tighter: its metadata's); one
 * holding many values is parsed in slices with turns of the event loop between them
 * (`parseJsonSliced`), since one `JSON.parse` of tens of thousands of members holds the loop
 * for tens of milliseconds. A body that is no JSON text (not UTF-8, empty, or unparsable) is an
 * invalid request like any other: 422 `invalid_request`, the status the contract declares for it
 * on every route.
 */
import { PowerContextError } from '../core/errors.js'
import { timeSlicer } from '../core/event-loop-slices.js'
import { MAX_CAPTURE_METADATA_VALUES } from '../storage/spi/memory-backend.js'
import { CAPTURE_BODY_VALUES, countJsonValues, MAX_BODY_VALUES } from '../wire/body-values.js'
import { parseJsonSliced } from '../wire/sliced-json.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Bodies past this size are counted (≈ 2 ms per MiB) before they are parsed. */
const COUNTED_BYTES = 16 * 1024
/** Counted bodies holding more values than this are parsed in slices (one parse ≈ 3 ms or more). */
export const SLICED_PARSE_VALUES = 4_000

/** An error with the HTTP status it answers. */
export function clientError(
  status: number,
  code: 'invalid_request' | 'payload_too_large',
  message: string,
  details?: Record<string, unknown>,
) {
  return Object.assign(new PowerContextError(code, message, details), { statusCode: status })
}

/** A body over {@link MAX_BODY_VALUES}: `payload_too_large`, naming the limit. */
const tooManyValues = () =>
  clientError(
    413,
    'payload_too_large',
    `request body holds more than ${MAX_BODY_VALUES} JSON values (object members and array items)`,
    { limit: 'body_values', max: MAX_BODY_VALUES },
  )

/** A capture body over {@link CAPTURE_BODY_VALUES}: its metadata is over its bound. */
const tooManyMetadataValues = () =>
  clientError(
    413,
    'payload_too_large',
    `capture request body holds more than ${CAPTURE_BODY_VALUES} JSON values: metadata holds at most ${MAX_CAPTURE_METADATA_VALUES} (object members and array items)`,
    { limit: 'metadata_values', max: MAX_CAPTURE_METADATA_VALUES },
  )

const notJson = () => clientError(422, 'invalid_request', 'request body is not valid JSON')

/**
 * The JSON value of a request body (`capture`: the body of a capture), or the error saying why
 * there is none: 413 `payload_too_large` (too many values), 422 `invalid_request`.
 */
export async function parseJsonBody(body: Buffer, capture: boolean): Promise<unknown> {
  const max = capture ? CAPTURE_BODY_VALUES : MAX_BODY_VALUES
  // A value takes at least 2 bytes (`0,`): a small body cannot hold too many.
  const values = body.length <= Math.min(COUNTED_BYTES, 2 * max) ? 0 : countJsonValues(body, max)
  if (values > max) throw capture ? tooManyMetadataValues() : tooManyValues()
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    throw clientError(422, 'invalid_request', 'request body is not valid UTF-8')
  }
  if (text.trim() === '') throw clientError(422, 'invalid_request', 'request body is empty')
  try {
    return values <= SLICED_PARSE_VALUES
      ? JSON.parse(text)
      : await parseJsonSliced(text, timeSlicer())
  } catch {
    throw notJson()
  }
}
