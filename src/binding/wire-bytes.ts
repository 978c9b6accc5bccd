/*
 * uint8[] fields between rclnodejs and plain Uint8Arrays, for every program here that runs rclnodejs
 * (the bridge's adapter and the reference nodes).
 */

/**
 * A uint8[] field as received, as a plain Uint8Array. rclnodejs delivers Uint8Array by default
 * (enableTypedArray), number[] when a subscription or client asks for `serializationMode: 'plain'`;
 * a Buffer (a Uint8Array subclass with different `slice` semantics) is re-viewed, not copied.
 */
export const bytesFromWire = (bytes: number[] | Uint8Array): Uint8Array => {
  if (!(bytes instanceof Uint8Array)) return Uint8Array.from(bytes);
  return Object.getPrototypeOf(bytes) === Uint8Array.prototype
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

/**
 * A Uint8Array rclnodejs will serialise correctly. Its generated array wrappers copy
 * `typedArray.buffer` from offset 0 (rosidl_gen/templates/message-template.cjs, `freeze`), so a view
 * into a larger buffer (a subarray, a pooled Buffer, a WebSocket frame slice) would send the wrong
 * bytes. Such views are copied into an array that owns its whole buffer.
 */
export const bytesToWire = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 &&
  bytes.byteLength === bytes.buffer.byteLength &&
  bytes.buffer instanceof ArrayBuffer
    ? bytes
    : new Uint8Array(bytes);
