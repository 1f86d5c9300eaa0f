<?php
// A PHP client of the bloomkit functions, as a fleet's PHP process would be (php-redis): sends VERB for every key
// read from stdin (a JSON array of base64 strings), 500 keys per FCALL, and prints the replies as one JSON array.
// Usage: php fleet.php HOST:PORT[,HOST:PORT...] single|cluster VERB NAME < keys.json
[, $nodes, $mode, $verb, $name] = $argv;
$keys = array_map('base64_decode', json_decode(stream_get_contents(STDIN)));
if ($mode === 'cluster') {
    $redis = new RedisCluster(null, explode(',', $nodes));
} else {
    [$host, $port] = explode(':', $nodes);
    $redis = new Redis();
    $redis->connect($host, (int) $port);
}
$out = [];
foreach (array_chunk($keys, 500) as $batch) {
    // A cluster client routes a raw command by its first argument: the filter's name, FCALL's one key.
    $reply = $mode === 'cluster'
        ? $redis->rawCommand($name, 'FCALL', $verb, 1, $name, ...$batch)
        : $redis->rawCommand('FCALL', $verb, 1, $name, ...$batch);
    if (!is_array($reply)) {
        fwrite(STDERR, 'FCALL failed: ' . $redis->getLastError() . "\n");
        exit(1);
    }
    array_push($out, ...$reply);
}
echo json_encode($out), "\n";
