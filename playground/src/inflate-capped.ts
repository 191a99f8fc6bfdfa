/**
 * Inflating a share link's deflate-raw payload with a cap on the output. Deflate expands up to ~1000 times, so a
 * link of under 1 MB can hold a gigabyte: the output is read as a stream and counted, and reading stops (the
 * stream is cancelled) at the first chunk past the cap. The whole output is never held, and the browser never
 * spends the time to make it.
 */

/** A share link that expands past the cap; `decodedBytes` is how far it got before it was stopped. */
export class ShareLinkTooLarge extends Error {
  override name = 'ShareLinkTooLarge';
  readonly decodedBytes: number;

  constructor(cap: number, decodedBytes: number) {
    super(`This share link was not opened: it expands to more than ${formatSize(cap)} (the limit for a link).`);
    this.decodedBytes = decodedBytes;
  }
}

const formatSize = (bytes: number): string =>
  bytes >= 1048576 ? `${Number((bytes / 1048576).toFixed(2))} MiB` : `${Number((bytes / 1024).toFixed(2))} KiB`;

/** `bytes` inflated (deflate-raw), or ShareLinkTooLarge as soon as the output passes `cap` bytes. */
export async function inflateCapped(bytes: Uint8Array, cap: number): Promise<Uint8Array> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      // Cancelling tells the decompressor to stop; its error (if any) is of no interest once we gave up.
      await reader.cancel().catch(() => {});
      throw new ShareLinkTooLarge(cap, total);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
