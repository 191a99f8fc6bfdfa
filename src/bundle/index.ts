/** Run bundles: a sweep's run directory, scrubbed, as a .tar.gz with a manifest (Node only). */
export { BundleError, createBundle, MANIFEST, MANIFEST_SCHEMA_VERSION, safeSlug } from './bundle.js';
export type { BundleOptions, BundleResult, Manifest, ManifestFile } from './bundle.js';
export { memberHeader, tarBytes, TarGzWriter } from './tar.js';
export type { TarEntry } from './tar.js';
