// An asc transform: builds the VM without AssemblyScript's shadow stack.
//
// The shadow stack exists so a collecting runtime can find the references held in locals. The
// VM's runtime (assembly/rt/arena.ts) never collects — memory comes back by releasing the arena to
// a mark — so the stack only costs: every function that holds a reference reserves and zero-fills a
// frame (a `memory.fill` call per `run()`), and the module grows by a quarter. `--stackSize 0`
// should turn it off, but asc's CLI replaces a falsy stackSize with 32768 for every runtime other
// than stub and minimal (`!opts.stackSize && runtime === incremental`), which includes a custom
// one. The compiler itself honours 0: this transform sets the option and the module flag it was
// created with back to 0 after the CLI, before anything is compiled.
import { Transform } from 'assemblyscript/transform';

export default class NoShadowStack extends Transform {
  afterInitialize(program) {
    program.options.stackSize = 0;
    program.module.useShadowStack = false;
  }
}
