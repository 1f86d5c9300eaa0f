import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bloomkit, type Run, scratchDirectory, startBloomkit } from './support/run.js';

// A server that accepts the connection and then does not answer (stopped, swapping, a cut link, not Redis at all):
// every Redis command of the CLI ends with one line saying what it was doing, within the documented 3 s for the
// first answer and 10 s for any later reply, and a stop signal ends the wait at once.

const dir = scratchDirectory();
let file: string;

/** A fake server: its port, `nextChunk()` (resolves when a client next sends bytes), and `close`. */
interface FakeServer {
  readonly port: number;
  nextChunk(): Promise<void>;
  close(): void;
}

/** A loopback server: `answer` gets each chunk a client sends and returns what to write back ('' for silence). */
async function fakeServer(answer: (chunk: string) => string): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  let waiting: (() => void)[] = [];
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      for (const resolve of waiting) resolve();
      waiting = [];
      const reply = answer(chunk.toString('latin1'));
      if (reply !== '') socket.write(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    nextChunk: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

let silent: FakeServer;
let stalling: FakeServer;

/**
 * Answers the connection's handshake (HELLO refused, so the client speaks RESP2; CLIENT, INFO, PING), then nothing:
 * a server that stops answering after the connection was made.
 */
function handshakeOnly(chunk: string): string {
  let out = '';
  for (const command of chunk.split('*').slice(1)) {
    const name = command.split('\r\n')[2]?.toLowerCase();
    if (name === 'hello') out += "-ERR unknown command 'hello'\r\n";
    else if (name === 'client') out += '+OK\r\n';
    else if (name === 'info') out += '$9\r\nloading:0\r\n';
    else if (name === 'ping') out += '+PONG\r\n';
  }
  return out;
}

beforeAll(async () => {
  file = join(dir, 'f.bf');
  await bloomkit(['create', file, '-n', '1000', '-p', '0.01'], { cwd: dir });
  silent = await fakeServer(() => '');
  stalling = await fakeServer(handshakeOnly);
});
afterAll(() => {
  silent?.close();
  stalling?.close();
});

const env = () => {
  const { REDISCLI_AUTH: _, ...rest } = process.env;
  return rest;
};

/** Every command that talks to Redis, against the server on `port`, and what it says it was doing. */
const COMMANDS = (port: number): [string[], string][] => [
  [['push', file, `redis://127.0.0.1:${port}/f`], `pushing ${file} to f`],
  [['pull', `redis://127.0.0.1:${port}/f`, join(dir, 'pulled.bf')], 'pulling f'],
  [['dedup', '--redis', `redis://127.0.0.1:${port}/f`], 'deduplicating against f'],
  [
    ['redis', 'functions', 'status', `redis://127.0.0.1:${port}`],
    'reading the status of the functions library',
  ],
  [['redis', 'functions', 'install', `redis://127.0.0.1:${port}`], 'installing the functions library'],
];

describe('a server that never answers', () => {
  it('fails every Redis command with one line: no answer within 3 s, and what it was doing', async () => {
    const runs = await Promise.all(
      COMMANDS(silent.port).map(([args]) => bloomkit(args, { cwd: dir, env: env(), input: 'a\nb\n' })),
    );
    runs.forEach((run, i) => {
      const [args, doing] = COMMANDS(silent.port)[i]!;
      expect([run.status, run.stderr], args.join(' ')).toEqual([
        2,
        expect.stringMatching(
          new RegExp(
            `^bloomkit: redis://127.0.0.1:${silent.port}: no answer within 3 s while ${doing}.*\\n$`,
          ),
        ),
      ]);
      expect(run.stdout).toBe('');
    });
  });

  it('ends at SIGTERM or SIGINT while waiting, with 143 or 130 and what it was doing', async () => {
    for (const [signal, status] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      for (const [args, doing] of COMMANDS(silent.port).slice(0, 3)) {
        const reached = silent.nextChunk();
        const child = startBloomkit(args, dir);
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.stdin.end('a\n');
        // Sent once the run is waiting on the server: its first bytes have reached the fake server (a fixed delay was
        // too short on a busy machine, where the CLI had not started yet and died of the signal's default action).
        await reached;
        child.kill(signal);
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect([code, stderr], `${signal} ${args.join(' ')}`).toEqual([
          status,
          expect.stringMatching(new RegExp(`interrupted while ${doing}`)),
        ]);
      }
    }
  });
});

describe('a server that stops answering after the connection was made', () => {
  it('fails pull, push and dedup --redis after 10 s without a reply, with one line', async () => {
    const runs: Run[] = await Promise.all(
      COMMANDS(stalling.port)
        .slice(0, 3)
        .map(([args]) => bloomkit(args, { cwd: dir, env: env(), input: 'a\nb\n' })),
    );
    runs.forEach((run, i) => {
      const [args, doing] = COMMANDS(stalling.port)[i]!;
      expect([run.status, run.stderr], args.join(' ')).toEqual([
        2,
        expect.stringMatching(
          new RegExp(`no reply within 10 s while ${doing}: the server stopped answering`),
        ),
      ]);
    });
  });
});

describe('a server that is not Redis', () => {
  it("an HTTP server on the port: one line that says so, not the client library's internals", async () => {
    const http = await fakeServer(
      () => 'HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
    );
    try {
      const run = await bloomkit(['pull', `redis://127.0.0.1:${http.port}/f`, join(dir, 'x.bf')], {
        cwd: dir,
        env: env(),
      });
      expect([run.status, run.stderr]).toEqual([
        2,
        `bloomkit: redis://127.0.0.1:${http.port}: the server on 127.0.0.1:${http.port} does not speak Redis's protocol (an HTTP server or another service on that port?): check the port\n`,
      ]);
    } finally {
      http.close();
    }
  });
});
