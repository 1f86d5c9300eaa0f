import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a redis-server on loopback that can drop a connection right after Redis applied a call:
 * armed with a command name (`trap('evalsha')`), it forwards the next such command, waits for Redis's reply to it,
 * and closes the client's connection instead of passing that reply (and any after it) on. The client never learns
 * the outcome and resends what it had in flight on its new connection (ioredis does by default, with
 * `autoResendUnfulfilledCommands`): the case a write applied once under replay must survive.
 *
 * It reads both streams as RESP just far enough to count commands and replies, so the drop comes exactly after the
 * trapped command's reply, whatever the client pipelined around it.
 */
export class ReplayProxy {
  readonly port: number;
  /** Connections dropped after a trapped command's reply. */
  drops = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private armed: string | undefined;
  /** Matching commands still to let through before the trapped one. */
  private skip = 0;

  private constructor(server: Server, port: number) {
    this.server = server;
    this.port = port;
  }

  /** A proxy on a free loopback port to 127.0.0.1:`target`. */
  static async start(target: number): Promise<ReplayProxy> {
    let proxy: ReplayProxy | undefined;
    const server = createServer((client) => proxy!.serve(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('replay proxy: no port');
    proxy = new ReplayProxy(server, address.port);
    return proxy;
  }

  /**
   * Drops the connection of the next command named `command` (case-insensitive), or of the one after `skip` more
   * such commands, once Redis has replied to it.
   */
  trap(command: string, skip = 0): void {
    this.armed = command.toLowerCase();
    this.skip = skip;
  }

  /** Takes back a trap that has not gone off. */
  disarm(): void {
    this.armed = undefined;
  }

  /** Whether the armed trap has gone off (or none was armed). */
  get sprung(): boolean {
    return this.armed === undefined;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(client: Socket, target: number): void {
    const upstream = connect(target, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    const commands = new RespCounter(true);
    const replies = new RespCounter(false);
    /** The index (0-based, on this connection) of the trapped command, once it was sent. */
    let trappedAt = -1;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      for (const { name, index } of commands.feed(chunk)) {
        if (trappedAt >= 0 || this.armed === undefined || name !== this.armed) continue;
        if (this.skip > 0) {
          this.skip--;
          continue;
        }
        trappedAt = index;
        this.armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      const before = replies.count;
      const ends = replies.feedEnds(chunk);
      // Pass on the replies before the trapped command's, then drop the connection once its reply is in.
      const cut = trappedAt < 0 ? undefined : ends[trappedAt - before];
      if (cut === undefined) {
        client.write(chunk);
        return;
      }
      const keep = trappedAt - before === 0 ? 0 : ends[trappedAt - before - 1]!;
      if (keep > 0) client.write(chunk.subarray(0, keep));
      this.drops++;
      close();
    });
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }
}

/**
 * Counts complete RESP values (RESP2 or RESP3) in a stream: commands (arrays of bulk strings, as clients send them; `feed` returns
 * each command's name in lower case and its index on the connection) or replies (any RESP2 value; `feedEnds` returns where each one ends in the
 * chunk). Partial values wait for the next chunk.
 */
class RespCounter {
  count = 0;
  private pending: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(private readonly commands: boolean) {}

  feed(chunk: Buffer): { name: string; index: number }[] {
    const out: { name: string; index: number }[] = [];
    this.consume(chunk, (start, end) => {
      if (this.commands) out.push({ name: commandName(this.pending, start, end), index: this.count - 1 });
    });
    return out;
  }

  feedEnds(chunk: Buffer): number[] {
    const ends: number[] = [];
    this.consume(chunk, (_start, end) => ends.push(end - this.offset));
    return ends;
  }

  /** Appends `chunk`; calls `each(start, end)` (offsets in the pending buffer) for every complete value. */
  private consume(chunk: Buffer, each: (start: number, end: number) => void): void {
    this.offset = this.pending.length;
    const buffer = this.offset === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = buffer;
    let at = 0;
    for (;;) {
      const end = valueEnd(buffer, at);
      if (end < 0) break;
      this.count++;
      each(at, end);
      at = end;
    }
    this.pending = buffer.subarray(at);
    this.offset -= at;
  }
}

/** Where the RESP value starting at `at` ends, or −1 when the buffer does not hold all of it. */
function valueEnd(buffer: Buffer, at: number): number {
  if (at >= buffer.length) return -1;
  const line = buffer.indexOf('\r\n', at);
  if (line < 0) return -1;
  const type = String.fromCharCode(buffer[at]!);
  const number = Number(buffer.toString('latin1', at + 1, line));
  // RESP2 and RESP3 (ioredis 6 speaks RESP3): strings with a length, aggregates of n or 2n values, lines.
  if (type === '$' || type === '=' || type === '!') {
    if (number < 0) return line + 2;
    const end = line + 2 + number + 2;
    return end <= buffer.length ? end : -1;
  }
  if (type === '*' || type === '~' || type === '>' || type === '%' || type === '|') {
    const values = type === '%' || type === '|' ? 2 * number : Math.max(number, 0);
    let next = line + 2;
    for (let i = 0; i < values; i++) {
      next = valueEnd(buffer, next);
      if (next < 0) return -1;
    }
    // An attribute describes the value after it: the two are one reply.
    return type === '|' ? valueEnd(buffer, next) : next;
  }
  return line + 2; // + - : _ # , ( and inline commands
}

/** The first bulk string of the command array at [start, end), in lower case. */
function commandName(buffer: Buffer, start: number, end: number): string {
  const header = buffer.indexOf('\r\n', start);
  const bulk = buffer.indexOf('\r\n', header + 2);
  if (header < 0 || bulk < 0 || bulk >= end) return '';
  const length = Number(buffer.toString('latin1', header + 3, bulk));
  return buffer.toString('latin1', bulk + 2, bulk + 2 + length).toLowerCase();
}
