#!/usr/bin/env node
// Opens an sxsprof flame graph (SVG) in headless Chromium and reports what a user would see, as
// one JSON object on stdout: the hot function's text on screen, a screenshot's size, colours and
// one pixel, what sxsSearch/sxsZoom/sxsResetZoom do, and what a real click, hover and Ctrl-F do.
// tests/integration/test_views_browser.c asserts on that report.
//
// Usage: node browser_svg.js <chromium> <file.svg> <user-data-dir> <screenshot.png> <hot label>
//
// Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages
// separated by NUL on fds 3 and 4), so no WebSocket client is needed. It runs in a process group
// of its own that is killed on every way out, and the whole run is bounded by a timer.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

const TIMEOUT_MS = 60000;
const [chromiumPath, svgPath, userDataDir, pngPath, hotLabel] = process.argv.slice(2);
if (!hotLabel) {
  process.stderr.write("usage: browser_svg.js <chromium> <file.svg> <user-data-dir> <screenshot.png> <hot label>\n");
  process.exit(2);
}

let browser = null;
let browserErr = "";

// Kills Chromium's whole process group; safe to call more than once and from 'exit'.
function killBrowser() {
  if (browser === null || browser.exitCode !== null || browser.signalCode !== null) return;
  try {
    process.kill(-browser.pid, "SIGKILL");
  } catch (e) {
    /* already gone */
  }
}

function fail(message) {
  killBrowser();
  process.stderr.write(`browser_svg: ${message}\n`);
  if (browserErr) process.stderr.write(`chromium's stderr (tail):\n${browserErr.slice(-4000)}\n`);
  process.exit(1);
}

process.on("exit", killBrowser);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => fail(`got ${sig}`));
const deadline = setTimeout(() => fail(`no result after ${TIMEOUT_MS} ms`), TIMEOUT_MS);

// A minimal DevTools protocol client over Chromium's pipe.
class Cdp {
  constructor(input, output) {
    this.input = input;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, method}
    this.waiters = []; // {method, resolve}
    this.events = []; // every event, for later inspection
    let buffer = "";
    output.setEncoding("utf8");
    output.on("data", (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\0")) >= 0) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        this.dispatch(message);
      }
    });
  }

  dispatch(message) {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (message.error) p.reject(new Error(`${p.method}: ${JSON.stringify(message.error)}`));
      else p.resolve(message.result);
      return;
    }
    this.events.push(message);
    this.waiters = this.waiters.filter((w) => {
      if (w.method !== message.method) return true;
      w.resolve(message.params);
      return false;
    });
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.input.write(JSON.stringify(message) + "\0");
    });
  }

  // The next event named method, after this call.
  next(method) {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }
}

async function main() {
  browser = spawn(
    chromiumPath,
    [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      "--mute-audio",
      `--user-data-dir=${userDataDir}`,
      "--remote-debugging-pipe",
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"], detached: true },
  );
  browser.stderr.setEncoding("utf8");
  browser.stderr.on("data", (d) => {
    browserErr = (browserErr + d).slice(-16000);
  });
  browser.on("exit", (code, signal) => {
    if (!finished) fail(`chromium exited early (code ${code}, signal ${signal})`);
  });
  const cdp = new Cdp(browser.stdio[3], browser.stdio[4]);

  const { targetInfos } = await cdp.send("Target.getTargets");
  let page = targetInfos.find((t) => t.type === "page");
  const targetId = page ? page.targetId : (await cdp.send("Target.createTarget", { url: "about:blank" })).targetId;
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const send = (method, params = {}) => cdp.send(method, params, sessionId);

  await send("Page.enable");
  await send("Runtime.enable");
  await send("Emulation.setDeviceMetricsOverride", { width: 1200, height: 800, deviceScaleFactor: 1, mobile: false });
  const loaded = cdp.next("Page.loadEventFired");
  const url = "file://" + path.resolve(svgPath);
  const nav = await send("Page.navigate", { url });
  if (nav.errorText) throw new Error(`navigate ${url}: ${nav.errorText}`);
  await loaded;

  // Evaluates an expression in the page (promises awaited) and returns its value.
  async function evaluate(expression) {
    const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`evaluate ${expression.slice(0, 80)}: ${JSON.stringify(r.exceptionDetails)}`);
    return r.result.value;
  }
  // A graph taller than the window (a deep one) gets a window as tall, so that its every frame can
  // be pointed at and photographed.
  const tall = await evaluate(`Number(document.documentElement.getAttribute("height"))`);
  if (tall > 800)
    await send("Emulation.setDeviceMetricsOverride", { width: 1200, height: Math.ceil(tall), deviceScaleFactor: 1, mobile: false });
  const hot = JSON.stringify(hotLabel);
  const helpers = `
    var frameG = (name) => Array.from(document.querySelectorAll("g.f")).find((g) => g.getAttribute("data-name") === name);
    var rectOf = (name) => frameG(name).querySelector("rect");
    var shown = (name) => getComputedStyle(frameG(name)).display !== "none";
    var box = (name) => { var b = rectOf(name).getBoundingClientRect(); return {x: b.x, y: b.y, w: b.width, h: b.height}; };
    var hotG = frameG(${hot});
    var hotRect = hotG.querySelector("rect");
    var hotParent = (() => { var d = Number(hotG.getAttribute("data-depth")), x = Number(hotRect.getAttribute("x"));
      return Array.from(document.querySelectorAll("g.f")).find((g) => Number(g.getAttribute("data-depth")) === d - 1 &&
        Number(g.querySelector("rect").getAttribute("x")) <= x + 1e-6 &&
        Number(g.querySelector("rect").getAttribute("x")) + Number(g.querySelector("rect").getAttribute("width")) >=
          x + Number(hotRect.getAttribute("width")) - 1e-6); })();
    var hotSibling = Array.from(document.querySelectorAll("g.f")).find((g) => g !== hotG &&
      g.getAttribute("data-depth") === hotG.getAttribute("data-depth") &&
      Number(g.querySelector("rect").getAttribute("x")) >= Number(hotParent.querySelector("rect").getAttribute("x")) &&
      Number(g.querySelector("rect").getAttribute("x")) < Number(hotParent.querySelector("rect").getAttribute("x")) +
        Number(hotParent.querySelector("rect").getAttribute("width")));
    var notRelated = Array.from(document.querySelectorAll("g.f")).find((g) =>
      Number(g.getAttribute("data-depth")) === Number(hotParent.getAttribute("data-depth")) && g !== hotParent);
    var attrs = (g) => g ? {name: g.getAttribute("data-name"), x: Number(g.querySelector("rect").getAttribute("x")),
      w: Number(g.querySelector("rect").getAttribute("width")), fill: g.querySelector("rect").getAttribute("fill"),
      display: getComputedStyle(g).display, text: g.querySelector("text").textContent} : null;
    "ok";`;
  await evaluate(helpers);

  const report = { url };
  report.load = await evaluate(`({
    title: document.getElementById("sxs-title").textContent,
    frames: document.querySelectorAll("g.f").length,
    fullWidth: Number(document.documentElement.getAttribute("data-width")),
    pad: Number(document.documentElement.getAttribute("data-pad")),
    matchFill: document.documentElement.getAttribute("data-match-fill"),
    api: ["sxsSearch", "sxsResetSearch", "sxsZoom", "sxsResetZoom"].map((n) => n + ":" + typeof window[n]),
    visibleTexts: Array.from(document.querySelectorAll("g.f text")).map((t) => t.textContent).filter((t) => t),
    documentText: document.documentElement.textContent.length,
    hot: attrs(hotG), parent: attrs(hotParent), sibling: attrs(hotSibling), other: attrs(notRelated),
    hotBox: box(${hot}),
  })`);

  // A screenshot of the graph as drawn: its size, how many colours it holds, and the colour of a
  // pixel inside the hot frame (right of its text).
  const svgHeight = await evaluate(`Number(document.documentElement.getAttribute("height"))`);
  const shot = await send("Page.captureScreenshot", {
    format: "png",
    clip: { x: 0, y: 0, width: 1200, height: svgHeight, scale: 1 },
  });
  fs.writeFileSync(pngPath, Buffer.from(shot.data, "base64"));
  const hb = report.load.hotBox;
  report.screenshot = await evaluate(`(async () => {
    var bytes = Uint8Array.from(atob(${JSON.stringify(shot.data)}), (c) => c.charCodeAt(0));
    var bitmap = await createImageBitmap(new Blob([bytes], {type: "image/png"}));
    var canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    var ctx = canvas.getContext("2d");
    ctx.drawImage(bitmap, 0, 0);
    var data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data, colors = new Set();
    for (var i = 0; i < data.length; i += 4) colors.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    var px = ctx.getImageData(Math.floor(${hb.x + hb.w} - 3), Math.floor(${hb.y} + 7), 1, 1).data;
    return {bytes: bytes.length, width: bitmap.width, height: bitmap.height, colors: colors.size,
            hotPixel: "#" + [px[0], px[1], px[2]].map((v) => v.toString(16).padStart(2, "0")).join("")};
  })()`);

  // Search: the percentage, which rects turned the match colour, and that reset restores them.
  report.search = await evaluate(`(() => {
    var before = Array.from(document.querySelectorAll("g.f rect")).map((r) => r.getAttribute("fill"));
    var percent = sxsSearch(${hot});
    var rects = Array.from(document.querySelectorAll("g.f rect"));
    var changed = rects.map((r, i) => ({name: r.parentNode.getAttribute("data-name"), was: before[i],
      now: r.getAttribute("fill")})).filter((c) => c.was !== c.now);
    var matched = document.getElementById("sxs-matched").textContent;
    var control = document.getElementById("sxs-search").textContent;
    var parentPercent = sxsSearch(${JSON.stringify(hotLabel.replace(/^\[[^\]]*\] /, "").replace(/\.[^.]*$/, "."))});
    var lowerPercent = sxsSearch(${JSON.stringify(hotLabel.replace(/^\[[^\]]*\] /, "").toLowerCase())});
    var regexPercent = sxsSearch("/Program\\\\.(Hot|Cold)$/");
    var nonePercent = sxsSearch("no such function anywhere");
    sxsResetSearch();
    var restored = Array.from(document.querySelectorAll("g.f rect")).every((r, i) => r.getAttribute("fill") === before[i]);
    return {percent, changed, matched, control, parentPercent, lowerPercent, regexPercent, nonePercent, restored,
            controlAfter: document.getElementById("sxs-search").textContent};
  })()`);

  // Zoom by the API: the hot frame spans the graph, its caller stays full width, its sibling and
  // unrelated frames hide; reset puts everything back.
  report.zoom = await evaluate(`(() => {
    var ok = sxsZoom(hotG);
    var zoomed = {ok, hot: attrs(hotG), parent: attrs(hotParent), sibling: attrs(hotSibling), other: attrs(notRelated),
      hotBox: box(${hot}), resetControl: document.getElementById("sxs-reset-zoom").getAttribute("class")};
    sxsResetZoom();
    return {zoomed, reset: {hot: attrs(hotG), parent: attrs(hotParent), sibling: attrs(hotSibling),
      other: attrs(notRelated), resetControl: document.getElementById("sxs-reset-zoom").getAttribute("class")}};
  })()`);

  // The same by hand: hover the hot frame, click it, then click the root.
  const cx = hb.x + hb.w / 2, cy = hb.y + hb.h / 2;
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: cx, y: cy });
  report.hover = await evaluate(`document.getElementById("sxs-status").textContent`);
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: cx, y: cy, button: "left", clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: cx, y: cy, button: "left", clickCount: 1 });
  report.click = await evaluate(`({hot: attrs(hotG), sibling: attrs(hotSibling)})`);
  const rootBox = await evaluate(`(() => { var b = document.querySelector("g.f.root rect").getBoundingClientRect();
    return {x: b.x + 5, y: b.y + b.height / 2}; })()`);
  await send("Input.dispatchMouseEvent", { type: "mousePressed", x: rootBox.x, y: rootBox.y, button: "left", clickCount: 1 });
  await send("Input.dispatchMouseEvent", { type: "mouseReleased", x: rootBox.x, y: rootBox.y, button: "left", clickCount: 1 });
  report.clickRoot = await evaluate(`({hot: attrs(hotG), sibling: attrs(hotSibling)})`);

  // Ctrl-F opens the search prompt; answering it searches.
  const dialog = cdp.next("Page.javascriptDialogOpening");
  const key = { modifiers: 2, key: "f", code: "KeyF", windowsVirtualKeyCode: 70, nativeVirtualKeyCode: 70 };
  const keyDown = send("Input.dispatchKeyEvent", { type: "rawKeyDown", ...key });
  const opened = await Promise.race([dialog, new Promise((r) => setTimeout(() => r(null), 5000))]);
  report.ctrlF = { dialog: opened ? opened.type : null };
  if (opened) {
    await send("Page.handleJavaScriptDialog", { accept: true, promptText: hotLabel });
  }
  await keyDown;
  await send("Input.dispatchKeyEvent", { type: "keyUp", ...key });
  report.ctrlF.matched = await evaluate(`document.getElementById("sxs-matched").textContent`);
  await send("Input.dispatchKeyEvent", { type: "rawKeyDown", key: "Escape", code: "Escape", windowsVirtualKeyCode: 27 });
  report.ctrlF.afterEscape = await evaluate(`document.getElementById("sxs-matched").textContent`);

  report.exceptions = cdp.events
    .filter((e) => e.method === "Runtime.exceptionThrown")
    .map((e) => JSON.stringify(e.params.exceptionDetails).slice(0, 500));
  report.consoleErrors = cdp.events
    .filter((e) => e.method === "Runtime.consoleAPICalled" && e.params.type === "error")
    .map((e) => JSON.stringify(e.params.args).slice(0, 500));

  finished = true;
  await cdp.send("Browser.close").catch(() => {});
  return report;
}

let finished = false;
main().then(
  (report) => {
    clearTimeout(deadline);
    process.stdout.write(JSON.stringify(report) + "\n", () => {
      killBrowser();
      process.exit(0);
    });
  },
  (err) => fail(err && err.stack ? err.stack : String(err)),
);
