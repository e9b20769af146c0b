// Reads a pprof file (gzip-compressed or not) with the pprof-format package, an encoder and decoder
// written independently of sxsprof's, and prints what test_write_pprof asserts on as one JSON
// object: sample types, sample count, value totals, per function flat and cumulative values (by
// function name), mappings, labels and comments. It checks nothing itself beyond what decoding and
// resolving ids require.
//
// Usage: node tests/unit/pprof_decode.js FILE
// Exit status: 0 decoded, 1 the file is not a valid profile (the problem on stderr), 2 the tools are
// missing or FILE is unreadable. pprof-format comes from $SXS_NODE_TOOLS_DIR (default
// ~/.local/share/sxsprof/node), which tests/setup.sh fills.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

function fail(status, message) {
  process.stderr.write(`pprof_decode: ${message}\n`);
  process.exit(status);
}

if (process.argv.length !== 3)
  fail(2, 'usage: node pprof_decode.js FILE');

const toolsDir = process.env.SXS_NODE_TOOLS_DIR || path.join(os.homedir(), '.local/share/sxsprof/node');
const modulePath = path.join(toolsDir, 'node_modules/pprof-format');
let Profile;
try {
  ({Profile} = require(modulePath));
} catch (e) {
  fail(2, `cannot load pprof-format (${modulePath}): ${e.message.split('\n')[0]}; run tests/setup.sh`);
}

let bytes;
try {
  bytes = fs.readFileSync(process.argv[2]);
} catch (e) {
  fail(2, `cannot read ${process.argv[2]}: ${e.message}`);
}

let profile;
try {
  const gzipped = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  profile = Profile.decode(gzipped ? zlib.gunzipSync(bytes) : bytes);
} catch (e) {
  fail(1, `not a pprof profile: ${e.message}`);
}

const strings = profile.stringTable.strings;
// A string index, checked: every index a profile holds must be in its table.
function str(index) {
  const i = Number(index);
  if (!Number.isInteger(i) || i < 0 || i >= strings.length)
    fail(1, `string index ${index} out of range (table of ${strings.length})`);
  return strings[i];
}
const valueType = (t) => (t ? `${str(t.type)}/${str(t.unit)}` : null);

const functionsById = new Map();
for (const f of profile.function)
  functionsById.set(Number(f.id), f);
const mappingsById = new Map();
for (const m of profile.mapping)
  mappingsById.set(Number(m.id), m);
const locationsById = new Map();
for (const l of profile.location) {
  const mappingId = Number(l.mappingId);
  if (mappingId !== 0 && !mappingsById.has(mappingId))
    fail(1, `location ${l.id} names mapping ${mappingId}, which does not exist`);
  locationsById.set(Number(l.id), l);
}

const nValues = profile.sampleType.length;
const totals = new Array(nValues).fill(0);
const functions = {};
const labels = {};
function functionEntry(name) {
  if (!functions[name])
    functions[name] = {flat: new Array(nValues).fill(0), cum: new Array(nValues).fill(0)};
  return functions[name];
}

for (const s of profile.sample) {
  if (s.value.length !== nValues)
    fail(1, `a sample has ${s.value.length} values for ${nValues} sample types`);
  const values = s.value.map(Number);
  values.forEach((v, i) => (totals[i] += v));
  // Leaf first: the first location's first line is where the sample was taken.
  const seen = new Set();
  s.locationId.forEach((id, depth) => {
    const loc = locationsById.get(Number(id));
    if (!loc)
      fail(1, `a sample names location ${id}, which does not exist`);
    loc.line.forEach((line, j) => {
      const fn = functionsById.get(Number(line.functionId));
      if (!fn)
        fail(1, `location ${loc.id} names function ${line.functionId}, which does not exist`);
      const name = str(fn.name);
      const entry = functionEntry(name);
      if (depth === 0 && j === 0)
        values.forEach((v, i) => (entry.flat[i] += v));
      if (!seen.has(name)) {
        seen.add(name);
        values.forEach((v, i) => (entry.cum[i] += v));
      }
    });
  });
  for (const l of s.label) {
    const key = str(l.key);
    const value = Number(l.str) !== 0 ? str(l.str) : Number(l.num);
    labels[key] = labels[key] || [];
    if (!labels[key].includes(value))
      labels[key].push(value);
  }
}

for (const fn of profile.function) {
  const entry = functionEntry(str(fn.name));
  entry.system_name = str(fn.systemName);
  entry.filename = str(fn.filename);
}

const summary = {
  string0: strings[0],
  sample_types: profile.sampleType.map(valueType),
  default_sample_type: str(profile.defaultSampleType),
  period_type: valueType(profile.periodType),
  period: Number(profile.period),
  time_nanos: String(profile.timeNanos),
  samples: profile.sample.length,
  totals,
  functions,
  mappings: profile.mapping.map((m) => str(m.filename)),
  labels,
  comments: profile.comment.map(str),
};
process.stdout.write(JSON.stringify(summary) + '\n');
