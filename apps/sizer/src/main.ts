// Loading the exceptions package adds its kind to the table, so the page sizes and reads it like the others.
import '@bloomkit/exceptions';
import type { BloomFilter } from '@bloomkit/core';
import { type FilterClass, kindByName, kinds } from '@bloomkit/filters';
import { type Field, fieldsOf } from './fields.js';
import { ask, inspect } from './inspect.js';
import { inspectParquet, isParquetFile } from './inspect-parquet.js';
import { FieldError } from './numbers.js';
import { plot } from './plot.js';
import type { Row } from './rows.js';
import { type SizeInput, size } from './size.js';
import { userWords } from './words.js';

/**
 * The page: pick a kind and fill in what you know to see its shape and a plot; drop a file to see what it holds
 * and ask it keys. The kinds are the table's (`@bloomkit/filters`), the numbers the libraries'. Each render counts
 * itself in `data-renders` / `data-inspections` on <body>, so a script driving the page knows when it is done.
 */

const $ = <T extends HTMLElement>(selector: string): T => {
  const found = document.querySelector<T>(selector);
  if (found === null) throw new Error(`the page lacks ${selector}`);
  return found;
};

/** What was typed into each field, kept across kinds. */
const typed = new Map<string, string>();
let current: FilterClass = kindByName('standard')!;

function kindButtons(): void {
  const bar = $('#kinds');
  for (const Class of kinds()) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = Class.kind.name;
    button.dataset.kind = Class.kind.name;
    button.addEventListener('click', () => {
      current = Class;
      showFields();
      render();
    });
    bar.append(button);
  }
}

function showFields(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('#kinds button')) {
    button.setAttribute('aria-pressed', String(button.dataset.kind === current.kind.name));
  }
  const form = $('#fields');
  form.replaceChildren();
  for (const field of fieldsOf(current)) {
    const key = `${current.kind.params}:${field.name}`;
    const input = document.createElement('input');
    input.id = `field-${field.name}`;
    input.name = field.name;
    input.placeholder = field.hint;
    input.value = typed.get(key) ?? field.initial;
    input.autocomplete = 'off';
    input.addEventListener('input', () => {
      typed.set(key, input.value);
      render();
    });
    form.append(labelled(field.label, input));
  }
  const widths = current.kind.counterWidths.filter((w) => w > 0);
  if (widths.length > 0) form.append(labelled('counter bits', choice('counterBits', widths.map(String))));
  if (current.kind.params === 'wrapper') {
    const inner = kinds()
      .filter((Class) => Class.kind.params === 'single')
      .map((Class) => Class.kind.name);
    form.append(labelled('nested kind', choice('inner', inner)));
  }
}

function labelled(text: string, control: HTMLElement): HTMLLabelElement {
  const label = document.createElement('label');
  const span = document.createElement('span');
  span.textContent = text;
  label.append(span, control);
  return label;
}

function choice(name: string, options: readonly string[]): HTMLSelectElement {
  const select = document.createElement('select');
  select.id = `field-${name}`;
  select.name = name;
  for (const value of options) select.add(new Option(value, value));
  const key = `${current.kind.params}:${name}`;
  select.value = typed.get(key) ?? options[0]!;
  select.addEventListener('change', () => {
    typed.set(key, select.value);
    render();
  });
  return select;
}

/** The fields' values; a field that does not read is a FieldError. */
function readInput(fields: readonly Field[]): SizeInput {
  const input: Record<string, number | string | undefined> = {};
  for (const field of fields) {
    input[field.name] = field.read(field.label, $<HTMLInputElement>(`#field-${field.name}`).value);
  }
  const counterBits = document.querySelector<HTMLSelectElement>('#field-counterBits');
  if (counterBits !== null) input.counterBits = Number(counterBits.value);
  const inner = document.querySelector<HTMLSelectElement>('#field-inner');
  if (inner !== null) input.inner = inner.value;
  return input as SizeInput;
}

let renders = 0;

function render(): void {
  const error = $('#size-error');
  const figure = $('#plot');
  error.textContent = '';
  try {
    const sized = size(current, readInput(fieldsOf(current)));
    showRows($('#shape'), sized.rows);
    figure.replaceChildren(...(sized.plot === undefined ? [] : [plot(sized.plot)]));
  } catch (thrown) {
    // The library's typed errors name the parameter and its range; the page says them in its own words.
    error.textContent =
      thrown instanceof FieldError
        ? thrown.message
        : userWords(thrown instanceof Error ? thrown.message : String(thrown));
    showRows($('#shape'), []);
    figure.replaceChildren();
  }
  $('#shape').dataset.kind = current.kind.name;
  document.body.dataset.renders = String(++renders);
}

function showRows(table: HTMLElement, rows: readonly Row[]): void {
  table.replaceChildren(
    ...rows.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.field = r.field;
      const th = document.createElement('th');
      th.textContent = r.label;
      const td = document.createElement('td');
      td.textContent = r.text;
      td.dataset.value = String(r.value);
      tr.append(th, td);
      return tr;
    }),
  );
}

let inspected: BloomFilter | undefined;
let inspections = 0;

async function open(file: File): Promise<void> {
  const error = $('#inspect-error');
  error.textContent = '';
  try {
    const content = new Uint8Array(await file.arrayBuffer());
    if (isParquetFile(content)) {
      // A Parquet file's filters are listed, as bloomkit info lists them (bloomkit parquet asks its values).
      inspected = undefined;
      showRows($('#facts'), await inspectParquet(file.name, content));
    } else {
      const result = inspect(file.name, content);
      // A damaged file shows what it says beside the error, as bloomkit info does; its filter is not asked.
      inspected = result.damaged === undefined ? result.filter : undefined;
      if (result.damaged !== undefined) error.textContent = `${file.name}: ${userWords(result.damaged)}`;
      showRows($('#facts'), result.rows);
    }
    answer();
  } catch (thrown) {
    inspected = undefined;
    error.textContent = `${file.name}: ${userWords(thrown instanceof Error ? thrown.message : String(thrown))}`;
    showRows($('#facts'), []);
    $('#answers').replaceChildren();
  }
  document.body.dataset.inspections = String(++inspections);
}

function answer(): void {
  const list = $('#answers');
  if (inspected === undefined) {
    list.replaceChildren();
    return;
  }
  try {
    list.replaceChildren(
      ...ask(inspected, $<HTMLTextAreaElement>('#queries').value).map(({ key, present }) => {
        const item = document.createElement('li');
        item.dataset.present = String(present);
        item.textContent = `${key} → ${present ? 'maybe present' : 'absent'}`;
        return item;
      }),
    );
  } catch (thrown) {
    const item = document.createElement('li');
    item.className = 'error';
    item.textContent = userWords(thrown instanceof Error ? thrown.message : String(thrown));
    list.replaceChildren(item);
  }
}

function dropZone(): void {
  const zone = $('#drop');
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const file = event.dataTransfer?.files[0];
    if (file === undefined) return;
    $<HTMLInputElement>('#file').value = '';
    void open(file);
  });
  const picker = $<HTMLInputElement>('#file');
  picker.addEventListener('change', () => {
    const file = picker.files?.[0];
    if (file !== undefined) void open(file);
  });
  $('#queries').addEventListener('input', answer);
}

kindButtons();
showFields();
render();
dropZone();
document.body.dataset.ready = 'true';
