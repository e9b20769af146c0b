#!/usr/bin/env node
// Opens an sxsprof flame graph (SVG) in headless Chromium and reports what a user would see, as
// one JSON object on stdout: the hot function's text on screen, a screenshot's size, colours and
// one pixel, what sxsSearch/sxsZoom/sxsResetZoom do, and what a real click, hover and Ctrl-F do.
// tests/integration/test_views_browser.c asserts on that report.
//
// Usage: node browser_svg.js <chromium> <file.svg> <user-data-dir> <screenshot.png> <hot label>
//
// Chromium is driven through browser_cdp.js.
"use strict";

const fs = require("fs");
const path = require("path");
const { run } = require("./browser_cdp.js");

const TIMEOUT_MS = 60000;
const [chromiumPath, svgPath, userDataDir, pngPath, hotLabel] = process.argv.slice(2);
if (!hotLabel) {
  process.stderr.write("usage: browser_svg.js <chromium> <file.svg> <user-data-dir> <screenshot.png> <hot label>\n");
  process.exit(2);
}

run("browser_svg", chromiumPath, userDataDir, TIMEOUT_MS, async ({ cdp, send, evaluate }) => {
  await send("Emulation.setDeviceMetricsOverride", { width: 1200, height: 800, deviceScaleFactor: 1, mobile: false });
  const loaded = cdp.next("Page.loadEventFired");
  const url = "file://" + path.resolve(svgPath);
  const nav = await send("Page.navigate", { url });
  if (nav.errorText) throw new Error(`navigate ${url}: ${nav.errorText}`);
  await loaded;

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

  Object.assign(report, cdp.errors());
  return report;

});
