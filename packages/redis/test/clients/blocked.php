<?php
// A PHP client adding to (or asking) a bloomkit blocked filter on a Redis Cluster: it routes each key to its shard by
// the shard rule (README of @bloomkit/redis), sends each shard's keys with one FCALL, and adds the new keys to the
// filter's count. Prints the answers, in the keys' order, as one JSON array.
// Usage: php blocked.php HOST:PORT[,HOST:PORT...] add|has NAME < keys.json (a JSON array of base64 strings)
[, $nodes, $action, $name] = $argv;
$keys = array_map('base64_decode', json_decode(stream_get_contents(STDIN)));
$redis = new RedisCluster(null, explode(',', $nodes));

/** (a * b) mod 2^32 for a, b < 2^32, in 64-bit integers (a * b itself would overflow to a float). */
function mul32(int $a, int $b): int
{
    return ($a * ($b & 0xffff) + ((($a * ($b >> 16)) & 0xffff) << 16)) & 0xffffffff;
}

/** MurmurHash3's 32-bit finalizer. */
function fmix32(int $h): int
{
    $h ^= $h >> 16;
    $h = mul32($h, 0x85ebca6b);
    $h ^= $h >> 13;
    $h = mul32($h, 0xc2b2ae35);
    return $h ^ ($h >> 16);
}

/** The shard that holds a key's block: MurmurHash3 x86_128 (PHP's murmur3c) of the key's bytes with the seed. */
function shard_of(string $key, int $seed, int $blocks, int $perShard): int
{
    [, $h1, $h2, $h3, $h4] = unpack('N4', hash('murmur3c', $key, true, ['seed' => $seed]));
    $block = (int) floor(fmix32($h1 ^ $h2 ^ $h3 ^ $h4) * ($blocks / 4294967296));
    return intdiv($block, $perShard);
}

$flat = $redis->rawCommand($name, 'FCALL_RO', 'bk_info', 1, $name);
$info = [];
for ($i = 0; $i < count($flat); $i += 2) {
    $info[$flat[$i]] = $flat[$i + 1];
}
$blocks = intdiv((int) $info['Bits'], 512);
$byShard = [];
foreach ($keys as $at => $key) {
    $byShard[shard_of($key, (int) $info['Seed'], $blocks, (int) $info['Shard blocks'])][] = $at;
}
$answers = array_fill(0, count($keys), 0);
$added = 0;
$verb = $action === 'add' ? 'bk_shard_madd' : 'bk_shard_mexists';
$command = $action === 'add' ? 'FCALL' : 'FCALL_RO';
foreach ($byShard as $shard => $indexes) {
    $target = "$name/$shard";
    $reply = $redis->rawCommand(
        $target, $command, $verb, 1, $target, $info['Generation'], ...array_map(fn ($i) => $keys[$i], $indexes)
    );
    if (!is_array($reply)) {
        fwrite(STDERR, "$verb on $target failed: " . $redis->getLastError() . "\n");
        exit(1);
    }
    foreach ($indexes as $j => $i) {
        $answers[$i] = $reply[$j];
        $added += $reply[$j];
    }
}
if ($action === 'add' && $added > 0) {
    $redis->rawCommand($name, 'FCALL', 'bk_shard_count', 1, $name, $info['Generation'], $added);
}
echo json_encode($answers), "\n";
