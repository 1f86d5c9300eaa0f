;; The blocked layout's probes and marks for a batch of keys already hashed (FORMAT.md section 5, as blockedSlots of
;; kernel/slot-loops.ts does for a blocked one-page store, bit for bit: test/wasm/blocked-instance.spec.ts), over
;; bits that live in this module's memory. The memory is imported (kernel-memory.ts lays it out; filters may share it):
;;   [0, 16384)        the hashes: key j's h1..h4 at 16*j, j < n <= 1024;
;;   [16384, 17408)    the answers: one byte per key;
;;   [17408]           where the touch loop leaves the OR of the bytes it read (nothing reads it);
;;   [20480, 24576)    key j's block address at 20480 + 4*j, computed once per call;
;;   [bits, ...)       the filter's bits from the offset `bits` (64-byte aligned, at least 65536), bit i
;;                     is bit i & 7 of byte bits + (i >>> 3); so every 64-byte block is one cache line.
;;
;; Key j's block is floor(fmix32(h1 ^ h2 ^ h3 ^ h4) * blockScale) in binary64 (blockScale = blocks * 2^-32, exact), its
;; k positions p(i) = h1 + h2*i + h3*i^2 + h4*i^3 (mod 2^32) by forward differences, each the bit p(i) >>> shift of
;; the block (shift = 32 - log2(512): exactly floor(p(i) * 512 * 2^-32)).
;;
;; probe(n, scale, shift, k): answers[j] = 1 when all k bits of key j are set, else 0; returns how many 1s.
;; mark(n, scale, shift, k): sets the k bits of each key in order; answers[j] = 1 when one of key j's bits was 0
;; (it was new); returns how many were new. Both first compute every key's block, then read one byte of each, so
;; the batch's cache misses are in flight together before the keys are taken in order.
(module
  (import "filter" "memory" (memory 2))
  ;; The memory map above, exported for the loader (core's kernel-memory.ts), which refuses a module whose map is not
  ;; its own: where the hashes and the answers start, how many keys they hold, and where filters' bits may start.
  (global (export "hashesAt") i32 (i32.const 0))
  (global (export "answersAt") i32 (i32.const 16384))
  (global (export "keysMax") i32 (i32.const 1024))
  (global (export "scratchBytes") i32 (i32.const 65536))
  ;; Where the bits of the filter at hand start in the memory (kernel-arena.ts places them, 64-byte aligned, at or
  ;; past 65536): filters sharing a memory share an instance, and the caller sets this before each call.
  (global $bits (export "bits") (mut i32) (i32.const 65536))
  (func $block (param $h1 i32) (param $h2 i32) (param $h3 i32) (param $h4 i32) (param $scale f64) (result i32)
    (local $x i32)
    (local.set $x (i32.xor (i32.xor (local.get $h1) (local.get $h2)) (i32.xor (local.get $h3) (local.get $h4))))
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 16))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0x85ebca6b)))
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 13))))
    (local.set $x (i32.mul (local.get $x) (i32.const 0xc2b2ae35)))
    (local.set $x (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 16))))
    ;; the block's first byte: bits + 64 * floor(u * scale)
    (i32.add
      (global.get $bits)
      (i32.shl
        (i32.trunc_f64_u (f64.floor (f64.mul (f64.convert_i32_u (local.get $x)) (local.get $scale))))
        (i32.const 6))))
  ;; Writes the block address of each of the n keys at 20480 + 4*j, then reads one byte of each block, so the
  ;; batch's cache misses are in flight together. The two loops are apart on purpose: loads of blocks computed in
  ;; the same iteration overlapped about a third as well (one loop: ~60 ns a key at 18 MiB of bits; two: ~16 ns).
  (func $blocks (param $n i32) (param $scale f64)
    (local $h i32) (local $at i32) (local $end i32) (local $sink i32)
    (local.set $at (i32.const 20480))
    (local.set $end (i32.add (i32.const 20480) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
        (i32.store (local.get $at)
          (call $block (i32.load (local.get $h)) (i32.load offset=4 (local.get $h))
            (i32.load offset=8 (local.get $h)) (i32.load offset=12 (local.get $h)) (local.get $scale)))
        (local.set $h (i32.add (local.get $h) (i32.const 16)))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $keys)))
    (local.set $at (i32.const 20480))
    (block $touched
      (loop $lines
        (br_if $touched (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $sink (i32.or (local.get $sink) (i32.load8_u (i32.load (local.get $at)))))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $lines)))
    ;; The loads must not be optimized away: a store of their OR where nothing reads it.
    (i32.store8 (i32.const 17408) (local.get $sink)))
  ;; probe(n, scale, shift, k) and mark(n, scale, shift, k) are one loop, $inline.slots, with a constant `mark`
  ;; argument: the one copy of the blocked recurrence in this module. The build (scripts/build-wasm.mjs) inlines it
  ;; into both, so each is its own loop with the branch on `mark` folded away: called, it cost probes of present
  ;; keys 10% (kernel alone, 10^6 URL keys hashed beforehand, interleaved); inlined, both are as fast as the two
  ;; copies it replaced. Marking ORs what it read; probing stops at the first clear bit.
  (func $inline.slots (param $n i32) (param $scale f64) (param $shift i32) (param $k i32) (param $mark i32) (result i32)
    (local $j i32) (local $h i32) (local $h3 i32) (local $h4 i32)
    (local $block i32) (local $p i32) (local $d1 i32) (local $d2 i32) (local $d3 i32) (local $i i32)
    (local $offset i32) (local $at i32) (local $old i32) (local $bit i32) (local $fresh i32) (local $answer i32)
    (local $total i32)
    (call $blocks (local.get $n) (local.get $scale))
    (block $keysDone
      (loop $keys
        (br_if $keysDone (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $h3 (i32.load offset=8 (local.get $h)))
        (local.set $h4 (i32.load offset=12 (local.get $h)))
        (local.set $block (i32.load offset=20480 (i32.shl (local.get $j) (i32.const 2))))
        (local.set $p (i32.load (local.get $h)))
        (local.set $d1 (i32.add (i32.load offset=4 (local.get $h)) (i32.add (local.get $h3) (local.get $h4))))
        (local.set $d3 (i32.mul (local.get $h4) (i32.const 6)))
        (local.set $d2 (i32.add (i32.shl (local.get $h3) (i32.const 1)) (local.get $d3)))
        (local.set $fresh (i32.const 0))
        (local.set $i (i32.const 0))
        (block $bitsDone
          (loop $bits
            (br_if $bitsDone (i32.ge_u (local.get $i) (local.get $k)))
            (local.set $offset (i32.shr_u (local.get $p) (local.get $shift)))
            (local.set $at (i32.add (local.get $block) (i32.shr_u (local.get $offset) (i32.const 3))))
            (local.set $bit (i32.shl (i32.const 1) (i32.and (local.get $offset) (i32.const 7))))
            (local.set $old (i32.load8_u (local.get $at)))
            (if (local.get $mark)
              (then
                ;; Marking ORs what it read: no branch on the bit.
                (i32.store8 (local.get $at) (i32.or (local.get $old) (local.get $bit)))
                (local.set $fresh
                  (i32.or (local.get $fresh) (i32.and (i32.xor (local.get $old) (i32.const -1)) (local.get $bit)))))
              (else (br_if $bitsDone (i32.eqz (i32.and (local.get $old) (local.get $bit))))))
            (local.set $p (i32.add (local.get $p) (local.get $d1)))
            (local.set $d1 (i32.add (local.get $d1) (local.get $d2)))
            (local.set $d2 (i32.add (local.get $d2) (local.get $d3)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $bits)))
        ;; mark: new when a bit was clear; probe: present when every bit was read (no clear one stopped the loop).
        (local.set $answer
          (select (i32.ne (local.get $fresh) (i32.const 0)) (i32.ge_u (local.get $i) (local.get $k)) (local.get $mark)))
        (i32.store8 offset=16384 (local.get $j) (local.get $answer))
        (local.set $total (i32.add (local.get $total) (local.get $answer)))
        (local.set $h (i32.add (local.get $h) (i32.const 16)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $keys)))
    (local.get $total))
  (func (export "probe") (param $n i32) (param $scale f64) (param $shift i32) (param $k i32) (result i32)
    (call $inline.slots (local.get $n) (local.get $scale) (local.get $shift) (local.get $k) (i32.const 0)))
  (func (export "mark") (param $n i32) (param $scale f64) (param $shift i32) (param $k i32) (result i32)
    (call $inline.slots (local.get $n) (local.get $scale) (local.get $shift) (local.get $k) (i32.const 1)))
)
