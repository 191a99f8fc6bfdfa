// Placeholder for the condition VM (issue "Condition language, part 2").
// It exists now so that `npm run build` exercises the AssemblyScript toolchain from the first commit;
// the module imports nothing from the host, which is the property the VM must keep.

/** Version of the bytecode format this VM understands; the TS compiler checks it before loading. */
export const BYTECODE_VERSION: i32 = 0;
