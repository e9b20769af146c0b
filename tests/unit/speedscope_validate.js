// Checks a speedscope file: against speedscope's own file format schema (with ajv), then the rules
// speedscope's importer relies on but the schema cannot say (frame indices in range, one weight per
// sample, evented profiles' events nested like a stack and never going back in time).
//
// Usage: node tests/unit/speedscope_validate.js FILE
// Exit status: 0 valid, 1 invalid (each problem on stderr), 2 the tools are missing or FILE is
// unreadable. The tools come from $SXS_NODE_TOOLS_DIR (default ~/.local/share/sxsprof/node), which
// tests/setup.sh fills.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

function fail(status, message) {
  process.stderr.write(`speedscope_validate: ${message}\n`);
  process.exit(status);
}

if (process.argv.length !== 3)
  fail(2, 'usage: node speedscope_validate.js FILE');

const toolsDir = process.env.SXS_NODE_TOOLS_DIR || path.join(os.homedir(), '.local/share/sxsprof/node');
const schemaPath = path.join(toolsDir, 'node_modules/speedscope/dist/release/file-format-schema.json');
const ajvPath = path.join(toolsDir, 'node_modules/ajv');

let Ajv;
let schema;
try {
  Ajv = require(ajvPath).default;
  schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
} catch (e) {
  fail(2, `cannot load ajv (${ajvPath}) or the speedscope schema (${schemaPath}): ${e.message.split('\n')[0]}; ` +
          'run tests/setup.sh');
}

let doc;
try {
  doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
} catch (e) {
  fail(2, `cannot read ${process.argv[2]} as JSON: ${e.message}`);
}

const problems = [];
const ajv = new Ajv({allErrors: true});
const validate = ajv.compile(schema);
if (!validate(doc)) {
  for (const e of validate.errors)
    problems.push(`schema: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
} else {
  const nFrames = doc.shared.frames.length;
  const frameOk = (f) => Number.isInteger(f) && f >= 0 && f < nFrames;
  if (doc.activeProfileIndex !== undefined &&
      !(Number.isInteger(doc.activeProfileIndex) && doc.activeProfileIndex < doc.profiles.length))
    problems.push(`activeProfileIndex ${doc.activeProfileIndex} is not a profile`);
  doc.profiles.forEach((p, pi) => {
    const where = `profiles[${pi}] (${p.name})`;
    if (p.type === 'sampled') {
      if (p.samples.length !== p.weights.length)
        problems.push(`${where}: ${p.samples.length} samples but ${p.weights.length} weights`);
      p.samples.forEach((s, si) => {
        if (!s.every(frameOk))
          problems.push(`${where}: samples[${si}] has a frame index out of range`);
      });
      if (p.weights.some((w) => w < 0))
        problems.push(`${where}: negative weight`);
      return;
    }
    const open = [];
    let at = p.startValue;
    p.events.forEach((e, ei) => {
      if (!frameOk(e.frame))
        problems.push(`${where}: events[${ei}] frame ${e.frame} out of range`);
      if (e.at < at)
        problems.push(`${where}: events[${ei}] at ${e.at} goes back from ${at}`);
      at = e.at;
      if (e.type === 'O') {
        open.push(e.frame);
      } else if (open.length === 0 || open[open.length - 1] !== e.frame) {
        problems.push(`${where}: events[${ei}] closes frame ${e.frame}, which is not the innermost open one`);
      } else {
        open.pop();
      }
    });
    if (open.length !== 0)
      problems.push(`${where}: ${open.length} frames never closed`);
    if (at > p.endValue)
      problems.push(`${where}: an event at ${at} is after endValue ${p.endValue}`);
  });
}

if (problems.length > 0) {
  for (const m of problems.slice(0, 50))
    process.stderr.write(`${m}\n`);
  fail(1, `${process.argv[2]}: ${problems.length} problem(s)`);
}
process.stdout.write(`speedscope_validate: ${process.argv[2]}: valid, ${doc.profiles.length} profile(s)\n`);
