;; XXH64 with seed 0 (Yann Collet's xxHash, doc/xxhash_spec.md) of one value or of many in one call, on native
;; 64-bit integers: the hash Parquet's split-block Bloom filters take of a value's plain bytes. The same hashes as
;; @bloomkit/parquet's xxh64 (test/xxh64.spec.ts checks them against the published vectors).
;;
;; Memory (4 pages, 256 KiB), laid out by the caller (xxh64-hasher.ts):
;;   [0, 4096)          starts: value j begins at byte starts[j], j < n ≤ 1024;
;;   [4096, 8192)       ends: value j ends before byte ends[j];
;;   [8192, 16384)      the hashes: value j's 64-bit hash at 8192 + 8·j, little-endian;
;;   [65536, 262144)    the window the caller copies the values' bytes into.
;;
;; hashOne(start, end): the hash of [start, end) to 8192. hashMany(starts, ends, n, out, base): the hash of
;; [base + starts[j], base + ends[j]) to out + 8·j, for each j < n (the caller's offsets are into the window).
;;
;; The round, the merge and the hash itself are `inline.` functions, inlined into their callers by the build
;; (scripts/build-wasm.mjs): Node 20 does not inline WebAssembly calls, and the twelve calls a 45-byte value made cost
;; more than its arithmetic (hashMany of 10^6 URL values: 46 → 14 ns a value, the copy into the window apart).
(module
  (memory (export "memory") 4)
  (func $inline.round (param $acc i64) (param $lane i64) (result i64)
    (i64.mul
      (i64.rotl (i64.add (local.get $acc) (i64.mul (local.get $lane) (i64.const 0xC2B2AE3D27D4EB4F))) (i64.const 31))
      (i64.const 0x9E3779B185EBCA87)))
  (func $inline.merge (param $h i64) (param $v i64) (result i64)
    (i64.add
      (i64.mul (i64.xor (local.get $h) (call $inline.round (i64.const 0) (local.get $v))) (i64.const 0x9E3779B185EBCA87))
      (i64.const 0x85EBCA77C2B2AE63)))
  (func $inline.xxh64 (param $p i32) (param $end i32) (result i64)
    (local $h i64) (local $v1 i64) (local $v2 i64) (local $v3 i64) (local $v4 i64) (local $limit i32)
    (local $length i64)
    (local.set $length (i64.extend_i32_u (i32.sub (local.get $end) (local.get $p))))
    (if (i64.ge_u (local.get $length) (i64.const 32))
      (then
        (local.set $v1 (i64.const 0x60EA27EEADC0B5D6))
        (local.set $v2 (i64.const 0xC2B2AE3D27D4EB4F))
        (local.set $v3 (i64.const 0))
        (local.set $v4 (i64.const 0x61C8864E7A143579))
        (local.set $limit (i32.sub (local.get $end) (i32.const 32)))
        (loop $stripes
          (local.set $v1 (call $inline.round (local.get $v1) (i64.load (local.get $p))))
          (local.set $v2 (call $inline.round (local.get $v2) (i64.load offset=8 (local.get $p))))
          (local.set $v3 (call $inline.round (local.get $v3) (i64.load offset=16 (local.get $p))))
          (local.set $v4 (call $inline.round (local.get $v4) (i64.load offset=24 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (br_if $stripes (i32.le_u (local.get $p) (local.get $limit))))
        (local.set $h
          (i64.add
            (i64.add (i64.rotl (local.get $v1) (i64.const 1)) (i64.rotl (local.get $v2) (i64.const 7)))
            (i64.add (i64.rotl (local.get $v3) (i64.const 12)) (i64.rotl (local.get $v4) (i64.const 18)))))
        (local.set $h (call $inline.merge (local.get $h) (local.get $v1)))
        (local.set $h (call $inline.merge (local.get $h) (local.get $v2)))
        (local.set $h (call $inline.merge (local.get $h) (local.get $v3)))
        (local.set $h (call $inline.merge (local.get $h) (local.get $v4))))
      (else (local.set $h (i64.const 0x27D4EB2F165667C5))))
    (local.set $h (i64.add (local.get $h) (local.get $length)))
    (block $words_done
      (loop $words
        (br_if $words_done (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl (i64.xor (local.get $h) (call $inline.round (i64.const 0) (i64.load (local.get $p)))) (i64.const 27))
              (i64.const 0x9E3779B185EBCA87))
            (i64.const 0x85EBCA77C2B2AE63)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $words)))
    (if (i32.le_u (i32.add (local.get $p) (i32.const 4)) (local.get $end))
      (then
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $h) (i64.mul (i64.load32_u (local.get $p)) (i64.const 0x9E3779B185EBCA87)))
                (i64.const 23))
              (i64.const 0xC2B2AE3D27D4EB4F))
            (i64.const 0x165667B19E3779F9)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))))
    (block $bytes_done
      (loop $bytes
        (br_if $bytes_done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h
          (i64.mul
            (i64.rotl
              (i64.xor (local.get $h) (i64.mul (i64.load8_u (local.get $p)) (i64.const 0x27D4EB2F165667C5)))
              (i64.const 11))
            (i64.const 0x9E3779B185EBCA87)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))) (i64.const 0xC2B2AE3D27D4EB4F)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))) (i64.const 0x165667B19E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))
  (func (export "hashOne") (param $start i32) (param $end i32)
    (i64.store (i32.const 8192) (call $inline.xxh64 (local.get $start) (local.get $end))))
  (func (export "hashMany") (param $starts i32) (param $ends i32) (param $n i32) (param $out i32) (param $base i32)
    (local $j i32)
    (block $done
      (loop $values
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (i64.store
          (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3)))
          (call $inline.xxh64
            (i32.add (local.get $base) (i32.load (i32.add (local.get $starts) (i32.shl (local.get $j) (i32.const 2)))))
            (i32.add (local.get $base) (i32.load (i32.add (local.get $ends) (i32.shl (local.get $j) (i32.const 2)))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $values)))))
