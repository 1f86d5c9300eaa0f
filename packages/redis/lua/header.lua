#!lua name=bloomkit
--[[
bloomkit's filters served by Redis Functions (Redis 7.0+, Valkey 7.2+): any client that can send FCALL adds to and
queries the filter that @bloomkit/redis keeps in Redis, bit for bit what a Node handle, an exported file and a local
filter hold. Load it with

    redis-cli -x FUNCTION LOAD REPLACE < bloomkit.lua

or RedisBloomFilter.installFunctions(client), which refuses to replace a newer version (bk_version says which one a
server holds).

Every verb is called as FCALL bk_verb 1 NAME args..., NAME being the filter's name: its one key argument, so a
cluster client routes the call to the slot of the filter's hash tag {NAME}, where every key of the filter lives.
The replies are RedisBloom's shapes (BF.ADD, BF.MADD, BF.EXISTS...); errors start with "ERR bloomkit:".

The filter's keys, meta hash fields and bytes are those of @bloomkit/redis (packages/redis/src/keys.ts, params.ts,
guard.ts); the hashing and positions are docs/FORMAT.md sections 4 and 5.

Kinds served: standard, partitioned and counting (4- or 8-bit counters), exceptions over standard and partitioned,
scalable (the chain grows on the server, by the sub-filter shapes its meta hash lists), window filters that
@bloomkit/redis created (count and time windows, on the server's clock or the caller's), cuckoo filters (adds,
deletes and copies counted on the server, whole or nothing), binary fuse filters that bloomkit push or
RedisBloomFilter.import wrote (a fixed set: bk_exists, bk_mexists, bk_card, bk_info), and blocked filters one shard
per call.
]]

local VERSION = 6
