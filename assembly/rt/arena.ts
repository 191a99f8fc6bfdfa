// The VM's allocator: a bump arena (like AssemblyScript's `stub` runtime) that the host can mark
// and release, so one evaluation's values are freed in O(1) while the loaded program stays, and
// with a byte limit below the WebAssembly maximum so a greedy condition hits a MemoryError the host
// can report instead of taking the process's memory.
import { AL_MASK, BLOCK, BLOCK_OVERHEAD, BLOCK_MAXSIZE, OBJECT, OBJECT_OVERHEAD, OBJECT_MAXSIZE } from '~lib/rt/common';

// @ts-ignore: decorator
@lazy let arenaStart: usize = ((__heap_base + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
// @ts-ignore: decorator
@lazy let arenaTop: usize = arenaStart;
// @ts-ignore: decorator
@lazy let arenaLimit: usize = <usize>0xffff0000;
// @ts-ignore: decorator
@lazy let arenaExhausted: bool = false;

function reserve(newTop: usize): void {
  if (newTop > arenaLimit) {
    arenaExhausted = true;
    unreachable(); // the host turns this trap into MemoryError and re-instantiates
  }
  let have = (<usize>memory.size()) << 16;
  if (newTop > have) {
    let pages = <i32>((newTop - have + 0xffff) >>> 16);
    if (memory.grow(pages) < 0) {
      arenaExhausted = true;
      unreachable();
    }
  }
  arenaTop = newTop;
}

// @ts-ignore: decorator
@inline function blockSize(size: usize): usize {
  return ((size + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __alloc(size: usize): usize {
  if (size > BLOCK_MAXSIZE) {
    arenaExhausted = true;
    unreachable();
  }
  let block = changetype<BLOCK>(arenaTop);
  let ptr = arenaTop + BLOCK_OVERHEAD;
  let payload = blockSize(size);
  reserve(ptr + payload);
  block.mmInfo = payload;
  return ptr;
}

// @ts-ignore: decorator
@unsafe @global
export function __realloc(ptr: usize, size: usize): usize {
  let block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  let have = block.mmInfo;
  let payload = blockSize(size);
  if (ptr + have == arenaTop) {
    // The newest block grows or shrinks in place.
    reserve(ptr + payload);
    block.mmInfo = payload;
    return ptr;
  }
  if (size <= have) return ptr;
  let moved = __alloc(max<usize>(payload, have << 1));
  memory.copy(moved, ptr, have);
  return moved;
}

// @ts-ignore: decorator
@unsafe @global
export function __free(ptr: usize): void {
  let block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  if (ptr + block.mmInfo == arenaTop) arenaTop = changetype<usize>(block);
}

// @ts-ignore: decorator
@unsafe @global
export function __new(size: usize, id: u32): usize {
  if (size > OBJECT_MAXSIZE) {
    arenaExhausted = true;
    unreachable();
  }
  let ptr = __alloc(OBJECT_OVERHEAD + size);
  let object = changetype<OBJECT>(ptr - BLOCK_OVERHEAD);
  object.gcInfo = 0;
  object.gcInfo2 = 0;
  object.rtId = id;
  object.rtSize = <u32>size;
  // Released memory is reused without clearing, and the compiler assumes (as for its GC
  // runtimes) that new objects are zeroed: StaticArray and Array skip their own fill.
  memory.fill(ptr + OBJECT_OVERHEAD, 0, size);
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
export function __renew(oldPtr: usize, size: usize): usize {
  if (size > OBJECT_MAXSIZE) {
    arenaExhausted = true;
    unreachable();
  }
  let ptr = __realloc(oldPtr - OBJECT_OVERHEAD, OBJECT_OVERHEAD + size);
  changetype<OBJECT>(ptr - BLOCK_OVERHEAD).rtSize = <u32>size;
  return ptr + OBJECT_OVERHEAD;
}

// Nothing is collected: memory is reclaimed by releasing the arena to a mark.
// @ts-ignore: decorator
@global @unsafe
export function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}
// @ts-ignore: decorator
@global @unsafe
export function __pin(ptr: usize): usize {
  return ptr;
}
// @ts-ignore: decorator
@global @unsafe
export function __unpin(ptr: usize): void {}
// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {}
// @ts-ignore: decorator
@global @unsafe
export function __collect(): void {}

/** The current top of the arena, to release back to later. */
// @ts-ignore: decorator
@global @unsafe
export function __arena_mark(): usize {
  return arenaTop;
}

/** Frees everything allocated since `mark`. */
// @ts-ignore: decorator
@global @unsafe
export function __arena_release(mark: usize): void {
  if (mark >= arenaStart && mark <= arenaTop) arenaTop = mark;
}

/** Caps the arena's top address (bytes of linear memory); allocations beyond trap. */
// @ts-ignore: decorator
@global @unsafe
export function __arena_set_limit(bytes: usize): void {
  arenaLimit = bytes;
}

// @ts-ignore: decorator
@global @unsafe
export function __arena_exhausted(): bool {
  return arenaExhausted;
}
