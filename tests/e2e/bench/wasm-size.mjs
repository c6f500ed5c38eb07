// What each crate and each function costs in a wasm module: `./x size` runs it on copies of
// dist/'s modules that keep their function names (wasm-bindgen --keep-debug, wasm-opt -g, the
// same optimisation as dist/), so the sizes are those of the code dist/ ships.
//
// For each module: its size raw and gzipped (without the name section), the code and data
// sections, then the crates (and, with --depth 2, their modules) by code size, and the largest
// functions. "gz" of a group is its functions' bodies gzipped together: an estimate of what the
// group adds to the gzipped module (gzip shares repeats across groups, so the column sums to
// more than the module's code gzipped).
//
// Generic code is counted where it is defined: a Yew component's view is monomorphised inside
// yew's `CompStateInner<COMP>::view`, so it shows under `yew`; a `sort_by` closure's sort under
// `core`. The function list tells them apart by size and neighbours.
//
// Usage: node tests/e2e/bench/wasm-size.mjs [--depth N] [--top N] [--json] FILE.wasm...
// --top N lists the N largest groups and functions (default 25; 0: all of them).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { gzipSync } from "node:zlib";

function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

const utf8 = new TextDecoder();

/** The sections of a module: [{ id, name (custom sections), bytes }]. */
function sections(bytes) {
  if (bytes.readUInt32LE(0) !== 0x6d736100) throw new Error("not a wasm module");
  const out = [];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    let size;
    [size, at] = leb(bytes, at + 1);
    const body = bytes.subarray(at, at + size);
    at += size;
    let name = null;
    if (id === 0) {
      const [length, start] = leb(body, 0);
      name = utf8.decode(body.subarray(start, start + length));
    }
    out.push({ id, name, bytes: body });
  }
  return out;
}

/** How many functions the module imports (they come first in the function index space). */
function importedFunctions(section) {
  let [count, at] = leb(section, 0);
  let functions = 0;
  const skipLimits = () => {
    const flags = section[at++];
    [, at] = leb(section, at);
    if (flags & 1) [, at] = leb(section, at);
  };
  while (count-- > 0) {
    for (let i = 0; i < 2; i++) {
      let length;
      [length, at] = leb(section, at);
      at += length;
    }
    const kind = section[at++];
    if (kind === 0) {
      [, at] = leb(section, at);
      functions++;
    } else if (kind === 1) {
      at++;
      skipLimits();
    } else if (kind === 2) {
      skipLimits();
    } else if (kind === 3) {
      at += 2;
    } else {
      [, at] = leb(section, at);
    }
  }
  return functions;
}

function bodies(section) {
  let [count, at] = leb(section, 0);
  const out = [];
  while (count-- > 0) {
    let size;
    [size, at] = leb(section, at);
    out.push(section.subarray(at, at + size));
    at += size;
  }
  return out;
}

/** Function index → name, from the name section's function names (subsection 1). */
function functionNames(section) {
  const names = new Map();
  let [length, at] = leb(section, 0);
  at += length;
  while (at < section.length) {
    const kind = section[at++];
    let size;
    [size, at] = leb(section, at);
    const end = at + size;
    if (kind === 1) {
      let [count, k] = leb(section, at);
      while (count-- > 0) {
        let index, nameLength;
        [index, k] = leb(section, k);
        [nameLength, k] = leb(section, k);
        names.set(index, utf8.decode(section.subarray(k, k + nameLength)));
        k += nameLength;
      }
    }
    at = end;
  }
  return names;
}

const ESCAPES = { $SP$: "@", $BP$: "*", $RF$: "&", $LT$: "<", $GT$: ">", $LP$: "(", $RP$: ")", $C$: "," };

/**
 * Rust's legacy symbol mangling (`_ZN…E`) back to a path, without the trailing hash; a name the
 * compiler demangled from its v0 mangling (the wasm release build's, whose compiler takes
 * unstable flags and so mangles as nightly does: `./x`'s wasm_release_cargo) without its crates'
 * disambiguators (`yew[6a88e76b22df7bfd]::html`).
 */
export function demangle(symbol) {
  if (!symbol.startsWith("_ZN")) return symbol.replace(/\[[0-9a-f]+\]/g, "");
  const parts = [];
  let at = 3;
  while (at < symbol.length && symbol[at] !== "E") {
    const digits = /^\d+/.exec(symbol.slice(at));
    if (!digits) return symbol;
    at += digits[0].length;
    let part = symbol.slice(at, at + Number(digits[0]));
    at += Number(digits[0]);
    if (part.startsWith("_$")) part = part.slice(1);
    part = part
      .replace(/\$[A-Za-z0-9]+\$/g, (e) => ESCAPES[e] ?? (e.startsWith("$u") ? String.fromCodePoint(parseInt(e.slice(2, -1), 16)) : e))
      .replaceAll("..", "::");
    parts.push(part);
  }
  if (/^h[0-9a-f]{16}$/.test(parts.at(-1) ?? "")) parts.pop();
  return parts.join("::");
}

/**
 * The crate path a function belongs to, `depth` segments deep: the implementing type's for
 * `<T as Trait>::f` (the trait's when the type is a parameter or a primitive).
 */
export function group(name, depth) {
  const pathOf = (text) => text.replace(/^(?:<|&|mut |dyn |\[|\(|\*const |\*mut )+/, "").split(/[<>()[\], ;]/)[0];
  const crate = (path) =>
    path
      .split("::")
      .filter(Boolean)
      .slice(0, depth)
      .join("::");
  const self = pathOf(name);
  if (self.includes("::")) return crate(self);
  const as = name.indexOf(" as ");
  if (as > 0) {
    const trait = pathOf(name.slice(as + 4));
    if (trait.includes("::")) return crate(trait);
  }
  // An inherent impl on a primitive (`<str>::to_lowercase`), or the allocator's, the runtime's
  // and the exports' own symbols.
  return name.startsWith("<") ? "core" : "(runtime, exports)";
}

export function analyse(file, { depth = 1, top = 25 } = {}) {
  const bytes = readFileSync(file);
  const all = sections(bytes);
  const imports = all.find((s) => s.id === 2);
  const code = all.find((s) => s.id === 10);
  const data = all.find((s) => s.id === 11);
  const nameSection = all.find((s) => s.id === 0 && s.name === "name");
  if (!code) throw new Error(`${file}: no code section`);
  const names = nameSection ? functionNames(nameSection.bytes) : new Map();
  const base = imports ? importedFunctions(imports.bytes) : 0;
  const functions = bodies(code.bytes).map((body, i) => {
    const raw = names.get(base + i);
    const name = raw ? demangle(raw).replace(/::h[0-9a-f]{16}$/, "") : `function ${base + i}`;
    return { name, body };
  });
  // The module as shipped: every section but the names.
  const shipped = Buffer.concat([bytes.subarray(0, 8), ...all.filter((s) => s !== nameSection).map((s) => wrap(s))]);
  const groups = new Map();
  for (const f of functions) {
    const key = group(f.name, depth);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(f.body);
  }
  const rows = [...groups]
    .map(([name, list]) => {
      const joined = Buffer.concat(list);
      return { name, functions: list.length, bytes: joined.length, gzipped: gzipSync(joined, { level: 9 }).length };
    })
    .sort((a, b) => b.bytes - a.bytes);
  return {
    file: basename(file),
    bytes: shipped.length,
    gzipped: gzipSync(shipped, { level: 9 }).length,
    code: { bytes: code.bytes.length, gzipped: gzipSync(code.bytes, { level: 9 }).length, functions: functions.length },
    data: data ? { bytes: data.bytes.length, gzipped: gzipSync(data.bytes, { level: 9 }).length } : null,
    named: names.size > 0,
    groups: rows,
    largest: functions
      .map((f) => ({ name: f.name, bytes: f.body.length }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top),
  };
}

function wrap(section) {
  const size = [];
  let n = section.bytes.length;
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    size.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([section.id, ...size]), section.bytes]);
}

function print(report, top) {
  const kb = (b) => `${(b / 1000).toFixed(1)} KB`;
  console.log(`${report.file}: ${kb(report.bytes)}, ${kb(report.gzipped)} gzipped`);
  console.log(`  code ${kb(report.code.bytes)} (${kb(report.code.gzipped)} gzipped), ${report.code.functions} functions`);
  if (report.data) console.log(`  data ${kb(report.data.bytes)} (${kb(report.data.gzipped)} gzipped)`);
  if (!report.named) console.log("  (no name section: build it with `./x size` to see functions by name)");
  console.log(`  ${"code".padStart(9)} ${"gz".padStart(9)} ${"fns".padStart(5)}  crate`);
  for (const g of report.groups.slice(0, top)) {
    console.log(`  ${kb(g.bytes).padStart(9)} ${kb(g.gzipped).padStart(9)} ${String(g.functions).padStart(5)}  ${g.name}`);
  }
  console.log(`  largest functions:`);
  for (const f of report.largest) console.log(`  ${kb(f.bytes).padStart(9)}  ${f.name.slice(0, 150)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = args.indexOf(name);
    if (at < 0) return fallback;
    const value = args[at + 1];
    args.splice(at, 2);
    return Number(value);
  };
  const depth = option("--depth", 1);
  const top = option("--top", 25) || Infinity;
  const json = args.includes("--json");
  const files = args.filter((a) => a !== "--json");
  if (files.length === 0) {
    console.error("usage: wasm-size.mjs [--depth N] [--top N] [--json] FILE.wasm...");
    process.exit(2);
  }
  const reports = files.map((f) => analyse(f, { depth, top }));
  if (json) console.log(JSON.stringify(reports, null, 1));
  else
    for (const r of reports) {
      print(r, top);
      console.log();
    }
}
