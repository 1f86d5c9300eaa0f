import { afterEach, describe, expect, it } from 'vitest';
import { KernelChoice, kernelBackend, setKernelBackend } from '../../src/kernel/backend.js';

afterEach(() => {
  setKernelBackend('auto');
});

describe('the one switch and KernelChoice', () => {
  it("makes a filter's kernel once, on its first batch, and hands it out while the switch is auto", () => {
    let made = 0;
    const choice = new KernelChoice(() => ({ id: ++made }));
    expect(made).toBe(0);
    const first = choice.get();
    expect(choice.get()).toBe(first);
    expect([made, first?.id]).toEqual([1, 1]);
  });

  it('hands out no kernel while the switch is javascript, without making one, and the kernel again after', () => {
    let made = 0;
    const choice = new KernelChoice(() => ({ id: ++made }));
    expect(setKernelBackend('javascript')).toBe('auto');
    expect(kernelBackend()).toBe('javascript');
    expect(choice.get()).toBeNull();
    expect(made).toBe(0);
    expect(setKernelBackend('auto')).toBe('javascript');
    expect(choice.get()?.id).toBe(1);
    setKernelBackend('javascript');
    expect(choice.get()).toBeNull();
    expect(made).toBe(1);
  });

  it('remembers that a filter has no kernel: make runs once even when it finds none', () => {
    let tries = 0;
    const choice = new KernelChoice<object>(() => {
      tries++;
      return undefined;
    });
    expect([choice.get(), choice.get(), tries]).toEqual([null, null, 1]);
  });
});
