#!/usr/bin/env node
// The timeline's views in headless Chromium, reported as one JSON object on stdout for
// tests/integration/test_sxs_timeline.c to assert on:
//   - the SVG flame graph's activity strip: a real mouse drag across it from <from> to <to>
//     seconds, and what the graph then draws (the widths of the frames whose name holds <a> and
//     <b>), then a double-click on the strip (back to the whole run);
//   - speedscope (its release, served with the profiles from a local HTTP server, as
//     #profileURL= loads them) opening each of the given files: the page's title, its text, and
//     any dialog, exception or console error on the way.
//
// Usage: node browser_timeline.js <chromium> <user-data-dir> <file.svg> <from> <to> <a> <b>
//                                 <speedscope release dir> <profile file>...
"use strict";

const fs = require("fs");
const http = require("http");
const path = require("path");
const { run } = require("./browser_cdp.js");

const TIMEOUT_MS = 90000;
const [chromiumPath, userDataDir, svgPath, fromS, toS, nameA, nameB, speedscopeDir, ...profiles] =
  process.argv.slice(2);
if (profiles.length === 0) {
  process.stderr.write(
    "usage: browser_timeline.js <chromium> <user-data-dir> <file.svg> <from> <to> <a> <b> <speedscope dir> <file>...\n",
  );
  process.exit(2);
}

// Serves speedscope's files at / and the profiles at /files/<name>.
function serve() {
  const files = new Map(profiles.map((p) => [path.basename(p), p]));
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split("?")[0]);
    let file = null;
    if (url.startsWith("/files/")) file = files.get(url.slice("/files/".length)) || null;
    else {
      const rel = url === "/" ? "index.html" : url.slice(1);
      const full = path.resolve(speedscopeDir, rel);
      if (full.startsWith(path.resolve(speedscopeDir) + path.sep)) file = full;
    }
    if (!file || !fs.existsSync(file)) {
      res.writeHead(404);
      res.end();
      return;
    }
    const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json",
                    ".wasm": "application/wasm", ".png": "image/png", ".woff2": "font/woff2", ".ico": "image/x-icon" };
    res.writeHead(200, { "Content-Type": types[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

run("browser_timeline", chromiumPath, userDataDir, TIMEOUT_MS, async ({ cdp, send, evaluate }) => {
  const report = {};
  await send("Emulation.setDeviceMetricsOverride", { width: 1200, height: 900, deviceScaleFactor: 1, mobile: false });

  // The flame graph and its strip.
  let loaded = cdp.next("Page.loadEventFired");
  await send("Page.navigate", { url: "file://" + path.resolve(svgPath) });
  await loaded;
  const tall = await evaluate(`Number(document.documentElement.getAttribute("height"))`);
  if (tall > 900)
    await send("Emulation.setDeviceMetricsOverride", { width: 1200, height: Math.ceil(tall), deviceScaleFactor: 1, mobile: false });
  await evaluate(`
    var widthOf = (needle) => Array.from(document.querySelectorAll("g.f")).filter((g) =>
        g.getAttribute("data-name").indexOf(needle) >= 0 && getComputedStyle(g).display !== "none")
      .reduce((sum, g) => sum + Number(g.querySelector("rect").getAttribute("width")), 0);
    var state = () => ({a: widthOf(${JSON.stringify(nameA)}), b: widthOf(${JSON.stringify(nameB)}),
      root: Number(document.querySelector("g.f.root rect").getAttribute("width")),
      range: document.getElementById("sxs-range").textContent,
      sel: Number(document.getElementById("sxs-sel").getAttribute("width")),
      selShown: getComputedStyle(document.getElementById("sxs-sel")).display !== "none"});
    "ok";`);
  report.strip = await evaluate(`(() => {
    var d = JSON.parse(document.getElementById("sxs-timeline").textContent);
    var b = document.querySelector("#sxs-strip rect").getBoundingClientRect();
    return {start_us: d.start_us, step_us: d.step_us, buckets: d.buckets.length,
            bars: document.querySelectorAll("#sxs-strip rect.sb").length, x: b.x, y: b.y, w: b.width, h: b.height};
  })()`);
  report.before = await evaluate(`state()`);
  const s = report.strip;
  const xOf = (sec) => s.x + ((sec * 1e6 - s.start_us) / (s.step_us * s.buckets)) * s.w;
  const y = s.y + s.h / 2;
  const x0 = xOf(Number(fromS)), x1 = xOf(Number(toS));
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: x0, y });
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: x0, y, button: "left", clickCount: 1 });
  for (let i = 1; i <= 10; i++)
    await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: x0 + ((x1 - x0) * i) / 10, y, button: "left" });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: x1, y, button: "left", clickCount: 1 });
  report.dragged = await evaluate(`state()`);
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: x0, y, button: "left", clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: x0, y, button: "left", clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: x0, y, button: "left", clickCount: 2 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: x0, y, button: "left", clickCount: 2 });
  report.reset = await evaluate(`state()`);
  report.svgErrors = cdp.errors();

  // speedscope opening each file.
  const server = await serve();
  const port = server.address().port;
  report.speedscope = [];
  const dialogs = [];
  for (const file of profiles) {
    const name = path.basename(file);
    // A new document for each (another hash on the same page would not load anew).
    loaded = cdp.next("Page.loadEventFired");
    await send("Page.navigate", { url: "about:blank" });
    await loaded;
    const seen = cdp.events.length;
    loaded = cdp.next("Page.loadEventFired");
    const fileUrl = `http://127.0.0.1:${port}/files/${encodeURIComponent(name)}`;
    await send("Page.navigate", { url: `http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent(fileUrl)}` });
    await loaded;
    // speedscope names the page after the profile once it has imported it.
    let title = "";
    for (let i = 0; i < 150 && !title.endsWith(" - speedscope"); i++) {
      const dialog = cdp.events.slice(seen).find((e) => e.method === "Page.javascriptDialogOpening");
      if (dialog) {
        dialogs.push(dialog.params.message);
        await send("Page.handleJavaScriptDialog", { accept: true });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
      title = await evaluate(`document.title`);
    }
    await new Promise((r) => setTimeout(r, 500));
    const errors = cdp.events.slice(seen);
    report.speedscope.push({
      file: name,
      title,
      text: await evaluate(`document.body.innerText.slice(0, 2000)`),
      canvases: await evaluate(`document.querySelectorAll("canvas").length`),
      dialogs: errors.filter((e) => e.method === "Page.javascriptDialogOpening").map((e) => e.params.message),
      exceptions: errors
        .filter((e) => e.method === "Runtime.exceptionThrown")
        .map((e) => JSON.stringify(e.params.exceptionDetails).slice(0, 500)),
      consoleErrors: errors
        .filter((e) => e.method === "Runtime.consoleAPICalled" && e.params.type === "error")
        .map((e) => JSON.stringify(e.params.args).slice(0, 500)),
    });
  }
  server.close();
  return report;
});
