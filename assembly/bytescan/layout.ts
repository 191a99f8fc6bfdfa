// The byte scanner's memory layout and record format: every fact assembly/bytescan/index.ts and its host
// (src/scan/byte-prefilter.ts) must agree on, in one file both import (as assembly/opcodes.ts is for the VM). It
// must stay valid TypeScript and valid AssemblyScript, so it holds only integer constants. Offsets in bytes.

/** The six nibble tables (lo/hi for fingerprint bytes 0, 1 and 2), TABLE_BYTES each, built by the module. */
export const TABLES = 0;
export const TABLE_BYTES = 32;
/** Fingerprint length in bytes (index.ts says why 3). */
export const FINGERPRINT = 3;
/** Scratch for one candidate vector, to read its lanes. */
export const SCRATCH = 96;

/** Literal records, RECORD_BYTES each, written by the host. */
export const LITERALS = 1024;
export const RECORD_BYTES = 16;
/** Field offsets of a record (each a little-endian u32). */
export const RECORD_BYTES_AT = 0; // where the literal's bytes are
export const RECORD_LENGTH = 4; // how many there are
export const RECORD_FINGERPRINT = 8; // the fingerprint's offset in the literal
export const RECORD_FLAGS = 12; // the bucket bit (BUCKET_MASK) | CASE_INSENSITIVE
export const BUCKETS = 8;
export const BUCKET_MASK = (1 << BUCKETS) - 1;
/** A case-insensitive literal: stored lower-cased, ASCII only. */
export const CASE_INSENSITIVE = 0x100;
/** Found flags, one byte per literal: the module sets them, the host clears them per range. */
export const FOUND = 4096;
/** The most literals the records hold (192); the found flags' region fits as many. */
export const MAX_LITERALS = (FOUND - LITERALS) / RECORD_BYTES;

/** The literals' bytes, [LITERAL_BYTES, LITERAL_BYTES_END). */
export const LITERAL_BYTES = 8192;
export const LITERAL_BYTES_END = 65536;

/**
 * How often each byte triple occurs in a log's first bytes (countTriples, for the host's choice of fingerprints):
 * TRIPLE_BUCKETS u16 counts from TRIPLES, indexed by a hash of the triple (tripleCount).
 */
export const TRIPLES = 65536;
export const TRIPLE_BUCKETS = 65536;
/** The most sample bytes countTriples counts: their counts stay below a u16's limit. */
export const TRIPLE_SAMPLE_MAX = 65535;

/**
 * Where the host's ranges start (after the triple counts): the windower's arena, or a copy; PADDING readable bytes
 * follow each (their values do not matter: index.ts says why).
 */
export const TEXT_BASE = TRIPLES + 2 * TRIPLE_BUCKETS;
export const PADDING = 32;
