/** Bytes of a base64 string (the embedded WebAssembly modules). */
export function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  // Node's Buffer decodes base64 natively; atob + a per-character callback cost ~9 ms of a cold CLI start (for
  // the VM's module). Browsers (no Buffer) keep the portable path.
  const { Buffer: NodeBuffer } = globalThis as {
    Buffer?: { from(s: string, enc: 'base64'): Uint8Array<ArrayBuffer> };
  };
  return NodeBuffer !== undefined
    ? NodeBuffer.from(text, 'base64')
    : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
