import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages ended by
 * NUL on file descriptors 3 and 4), so the test needs no WebSocket client and no browser package. The page gets
 * real input events: mouse clicks, typed text, a dragged and dropped file.
 */
export class Chromium {
  private readonly child: ChildProcess;
  private readonly out: Writable;
  private next = 0;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private buffer = '';
  private session = '';
  private exited: Error | undefined;

  private constructor() {
    this.child = spawn(
      'chromium-headless-shell',
      ['--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--remote-debugging-pipe', 'about:blank'],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    );
    this.out = this.child.stdio[3] as Writable;
    const input = this.child.stdio[4] as Readable;
    input.on('data', (chunk: Buffer) => this.receive(chunk.toString()));
    const fail = (error: Error) => {
      this.exited = error;
      for (const { reject } of this.waiting.values()) reject(error);
      this.waiting.clear();
    };
    this.child.on('error', () =>
      fail(
        new Error('chromium-headless-shell is not installed: run the README test command, which installs it'),
      ),
    );
    this.child.on('exit', (code, signal) => fail(new Error(`Chromium exited (${code ?? signal})`)));
  }

  /** A browser with one page of `width` × `height` CSS pixels. */
  static async launch(width = 1200, height = 1000): Promise<Chromium> {
    const browser = new Chromium();
    const { targetId } = (await browser.call('Target.createTarget', {
      url: 'about:blank',
      width,
      height,
    })) as {
      targetId: string;
    };
    const { sessionId } = (await browser.call('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    browser.session = sessionId;
    await browser.send('Page.enable');
    await browser.send('Emulation.setDeviceMetricsOverride', {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return browser;
  }

  close(): void {
    this.child.kill('SIGKILL');
  }

  /** A command to the page's session. */
  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    return this.call(method, params, this.session);
  }

  /**
   * Loads `url` and waits until the page says it is ready: `ready`, a JavaScript expression, is truthy (by default
   * the page's `<body data-ready="true">`, which a page sets once its modules ran).
   */
  async goto(url: string, ready = 'document.body?.dataset.ready === "true"'): Promise<void> {
    await this.send('Page.navigate', { url });
    await this.waitFor(ready);
  }

  /** The value of a JavaScript expression in the page. */
  async evaluate<T>(expression: string): Promise<T> {
    const reply = (await this.send('Runtime.evaluate', {
      expression,
      returnByValue: true,
      awaitPromise: true,
    })) as {
      result: { value: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (reply.exceptionDetails !== undefined) {
      throw new Error(
        `in the page: ${reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text}`,
      );
    }
    return reply.result.value;
  }

  /** Waits until `expression` is truthy in the page (polled; a deadline, never a measured time). */
  async waitFor(expression: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.evaluate<boolean>(`Boolean(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`the page never reached: ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The centre of the element `selector` names, in CSS pixels of the viewport (scrolled into view first). */
  async centre(selector: string): Promise<{ x: number; y: number }> {
    return this.evaluate(`(() => {
      const e = document.querySelector(${JSON.stringify(selector)});
      if (e === null) throw new Error('no element ' + ${JSON.stringify(selector)});
      e.scrollIntoView({ block: 'center' });
      const r = e.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    })()`);
  }

  /** A left click at the element's centre: mouse moved, pressed, released. */
  async click(selector: string): Promise<void> {
    const { x, y } = await this.centre(selector);
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await this.send('Input.dispatchMouseEvent', {
      type: 'mousePressed',
      x,
      y,
      button: 'left',
      clickCount: 1,
    });
    await this.send('Input.dispatchMouseEvent', {
      type: 'mouseReleased',
      x,
      y,
      button: 'left',
      clickCount: 1,
    });
  }

  /** Clicks into a field, selects what it holds (Ctrl+A) and types `text` over it. */
  async type(selector: string, text: string): Promise<void> {
    await this.click(selector);
    const key = { key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, modifiers: 2 };
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...key, commands: ['selectAll'] });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key });
    if (text === '') {
      const backspace = { key: 'Backspace', code: 'Backspace', windowsVirtualKeyCode: 8 };
      await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', ...backspace });
      await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...backspace });
    } else {
      await this.send('Input.insertText', { text });
    }
  }

  /** Drags the file at `path` from outside the page and drops it on the element `selector` names. */
  async dropFile(selector: string, path: string): Promise<void> {
    const { x, y } = await this.centre(selector);
    const data = { items: [], files: [path], dragOperationsMask: 1 };
    for (const type of ['dragEnter', 'dragOver', 'drop']) {
      await this.send('Input.dispatchDragEvent', { type, x, y, data });
    }
  }

  /** A PNG of the whole page. */
  async screenshot(): Promise<Buffer> {
    const { data } = (await this.send('Page.captureScreenshot', {
      format: 'png',
      captureBeyondViewport: true,
    })) as {
      data: string;
    };
    return Buffer.from(data, 'base64');
  }

  private call(method: string, params: Record<string, unknown>, sessionId?: string): Promise<unknown> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.out.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  private receive(text: string): void {
    this.buffer += text;
    for (let end = this.buffer.indexOf('\0'); end >= 0; end = this.buffer.indexOf('\0')) {
      const message = JSON.parse(this.buffer.slice(0, end)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      this.buffer = this.buffer.slice(end + 1);
      const waiter = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (waiter === undefined) continue;
      this.waiting.delete(message.id!);
      if (message.error !== undefined) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    }
  }
}
