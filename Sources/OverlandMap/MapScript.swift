/// The page's style and its one script: hover or tap a point for its time, speed, accuracy
/// and device (the nearest drawn point within 12 pixels, found through a 16-pixel grid).
enum MapScript {
    static let css = """
        body{margin:0;font:14px sans-serif;color:#222;background:#fff}
        #frame{position:relative;display:inline-block}#map{display:block;touch-action:manipulation}
        #tip{position:absolute;background:#fff;border:1px solid #777;padding:4px 6px;white-space:pre;pointer-events:none;font-size:12px}
        #legend{padding:4px 16px 16px}h1{font-size:18px;margin:8px 0}#legend p{margin:4px 0}.hint{color:#666}
        table{border-collapse:collapse;margin:10px 0}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
        td:nth-child(n+4){text-align:right}.sw{display:inline-block;width:10px;height:10px;margin-right:6px}
        ul.key{list-style:none;padding:0;display:flex;gap:18px;flex-wrap:wrap}ul.key li{display:flex;align-items:center;gap:5px}
        """

    static let javascript = """
        (function () {
          var data = JSON.parse(document.getElementById("points").textContent);
          var n = data.p.length / 5, xs = new Float64Array(n), ys = new Float64Array(n), ts = new Float64Array(n);
          var sp = new Int32Array(n), ac = new Int32Array(n), tr = new Int32Array(n), dv = new Int32Array(n);
          var x = 0, y = 0, t = data.t0, i, r;
          for (i = 0; i < n; i++) {
            x += data.p[5 * i]; y += data.p[5 * i + 1]; t += data.p[5 * i + 2];
            xs[i] = x / 10; ys[i] = y / 10; ts[i] = t; sp[i] = data.p[5 * i + 3]; ac[i] = data.p[5 * i + 4];
          }
          for (r = 0; r < data.runs.length; r += 3) {
            var end = r + 3 < data.runs.length ? data.runs[r + 3] : n;
            for (i = data.runs[r]; i < end; i++) { tr[i] = data.runs[r + 1]; dv[i] = data.runs[r + 2]; }
          }
          var cell = 16, grid = new Map();
          for (i = 0; i < n; i++) {
            var key = Math.floor(xs[i] / cell) + "," + Math.floor(ys[i] / cell);
            var list = grid.get(key);
            if (list) list.push(i); else grid.set(key, [i]);
          }
          var svg = document.getElementById("map"), tip = document.getElementById("tip");
          var mark = document.createElementNS("http://www.w3.org/2000/svg", "circle");
          mark.setAttribute("r", "7"); mark.setAttribute("fill", "none"); mark.setAttribute("stroke", "#000");
          mark.setAttribute("stroke-width", "2"); mark.setAttribute("visibility", "hidden");
          svg.appendChild(mark);
          function nearest(px, py) {
            var best = -1, bestDistance = 144, gx = Math.floor(px / cell), gy = Math.floor(py / cell);
            for (var dx = -1; dx <= 1; dx++) for (var dy = -1; dy <= 1; dy++) {
              var list = grid.get((gx + dx) + "," + (gy + dy)) || [];
              for (var k = 0; k < list.length; k++) {
                var j = list[k], d = (xs[j] - px) * (xs[j] - px) + (ys[j] - py) * (ys[j] - py);
                if (d < bestDistance) { bestDistance = d; best = j; }
              }
            }
            return best;
          }
          function hide() { tip.hidden = true; mark.setAttribute("visibility", "hidden"); }
          function show(event) {
            var box = svg.getBoundingClientRect(), width = svg.viewBox.baseVal.width || box.width;
            var px = (event.clientX - box.left) * width / box.width, py = (event.clientY - box.top) * width / box.width;
            var j = nearest(px, py);
            if (j < 0) { hide(); return; }
            var when = new Date(ts[j] * 1000).toISOString().replace("T", " ").replace(".000Z", "Z");
            tip.textContent = when + "\\n" + (sp[j] < 0 ? "speed unknown" : sp[j] + " km/h") + "\\n" +
              (ac[j] < 0 ? "accuracy unknown" : "accuracy " + ac[j] + " m") + "\\n" +
              "device " + (data.devices[dv[j]] || "") + "\\n" + (data.tracks[tr[j]] || "");
            tip.hidden = false;
            tip.style.left = Math.min(xs[j] + 12, box.width - 190) + "px";
            tip.style.top = Math.max(ys[j] - 80, 0) + "px";
            mark.setAttribute("cx", xs[j]); mark.setAttribute("cy", ys[j]); mark.setAttribute("visibility", "visible");
          }
          svg.addEventListener("pointermove", show);
          svg.addEventListener("pointerdown", show);
          svg.addEventListener("pointerleave", hide);
        })();
        """
}
