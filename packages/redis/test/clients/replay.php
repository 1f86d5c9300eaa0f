<?php
// A PHP client that retries, as a fleet's process told to retry would (php-redis): sends VERB with ID TOKEN for the
// keys read from stdin (a JSON array of base64 strings) in one FCALL and prints its reply as JSON; when the
// connection drops before the reply, it connects again and sends the same call, ID and all (three tries).
// Usage: php replay.php HOST:PORT VERB NAME TOKEN < keys.json
[, $address, $verb, $name, $token] = $argv;
$keys = array_map('base64_decode', json_decode(stream_get_contents(STDIN)));
[$host, $port] = explode(':', $address);
for ($try = 1; ; $try++) {
    try {
        $redis = new Redis();
        // A stalled read (a loaded machine) is one more resend, not a minute's wait: the ID makes it safe.
        $redis->connect($host, (int) $port, 5.0);
        $redis->setOption(Redis::OPT_READ_TIMEOUT, 5.0);
        $reply = $redis->rawCommand('FCALL', $verb, 1, $name, 'ID', $token, ...$keys);
        break;
    } catch (RedisException $error) {
        if ($try === 3) {
            fwrite(STDERR, 'FCALL failed: ' . $error->getMessage() . "\n");
            exit(1);
        }
    }
}
if ($reply === false) {
    fwrite(STDERR, 'FCALL failed: ' . $redis->getLastError() . "\n");
    exit(1);
}
echo json_encode(is_array($reply) ? $reply : [$reply]), "\n";
