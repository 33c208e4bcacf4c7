/* global document */
/* exported drawSequence */
// The viewer's message sequence chart: one lifeline per shown actor, fitted to the
// width it is given, each delivery an arrow from the step that sent it. Labels are
// placed so that none covers another label or another step's arrow: each tries a few
// spots and takes the first free.
// (Concatenated before viewer.client.js into the page's one script.)
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- used by viewer.client.js, concatenated after this file
var drawSequence = (function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, Math.max(1, n - 1)) + '…' : s; }

  // Whether the segment (x1,y1)-(x2,y2) passes through box b (Liang-Barsky clipping).
  function crosses(b, x1, y1, x2, y2) {
    var dx = x2 - x1, dy = y2 - y1, t0 = 0, t1 = 1;
    var p = [-dx, dx, -dy, dy], q = [x1 - b.x, b.x + b.width - x1, y1 - b.y, b.y + b.height - y1];
    for (var i = 0; i < 4; i++) {
      if (p[i] === 0) { if (q[i] < 0) return false; continue; }
      var t = q[i] / p[i];
      if (p[i] < 0) { if (t > t1) return false; if (t > t0) t0 = t; } else { if (t < t0) return false; if (t < t1) t1 = t; }
    }
    return t0 < t1;
  }
  // Boxes already taken and the arrows drawn, bucketed by rows of 20 px so a check looks only nearby.
  function Placer() { this.rows = {}; this.arrows = {}; }
  Placer.prototype.arrow = function (x1, y1, x2, y2, step) {
    var a = { x1: x1, y1: y1, x2: x2, y2: y2, step: step };
    for (var r = Math.floor(Math.min(y1, y2) / 20); r <= Math.floor(Math.max(y1, y2) / 20); r++) (this.arrows[r] = this.arrows[r] || []).push(a);
  };
  Placer.prototype.free = function (b, step) {
    for (var r = Math.floor(b.y / 20) - 1; r <= Math.floor((b.y + b.height) / 20) + 1; r++) {
      var list = this.rows[r];
      for (var i = 0; list && i < list.length; i++) {
        var o = list[i];
        if (b.x < o.x + o.width && o.x < b.x + b.width && b.y < o.y + o.height && o.y < b.y + b.height) return false;
      }
      var arrows = this.arrows[r];
      for (var j = 0; arrows && j < arrows.length; j++) {
        var a = arrows[j];
        if (a.step !== step && crosses({ x: b.x - 1, y: b.y - 1, width: b.width + 2, height: b.height + 2 }, a.x1, a.y1, a.x2, a.y2)) return false;
      }
    }
    return true;
  };
  Placer.prototype.take = function (b) {
    var box = { x: b.x - 3, y: b.y - 1, width: b.width + 6, height: b.height + 2 };
    for (var r = Math.floor(box.y / 20); r <= Math.floor((box.y + box.height) / 20); r++) (this.rows[r] = this.rows[r] || []).push(box);
  };
  // Moves `t` to the first candidate spot where it covers no label placed and no other
  // step's arrow; else the nearest free spot around the first, sideways then down.
  function place(placer, t, spots, step, xmax) {
    for (var i = 0; i < spots.length; i++) {
      t.setAttribute('x', spots[i][0]);
      t.setAttribute('y', spots[i][1]);
      var b = t.getBBox();
      if (placer.free(b, step)) { placer.take(b); return; }
    }
    var x = spots[0][0], y = spots[0][1];
    for (var k = 1; k < 80; k++) {
      var dy = 11 * Math.floor(k / 5), dx = [0, 40, -40, 80, -80][k % 5];
      t.setAttribute('x', Math.max(4, Math.min(xmax, x + dx)));
      t.setAttribute('y', y + dy);
      var bb = t.getBBox();
      if (placer.free(bb, step)) { placer.take(bb); return; }
    }
    t.setAttribute('x', x);
    t.setAttribute('y', y);
    placer.take(t.getBBox());
  }

  /**
   * Draws the chart into `chart` (rows) and `head` (actor names, sticky). `o`: { steps,
   * actors (shown), roles, failStep, cycleStart, key (the step numbers that matter to the
   * violation, drawn stronger), width, go(n) }. Returns { rows, marks, Y, ROW }.
   */
  return function draw(chart, head, o) {
    var steps = o.steps, actors = o.actors, last = steps.length - 1;
    var key = {};
    (o.key || []).forEach(function (n) { key[n] = true; });
    var ROW = 32, TOP = 22, LEFT = 64, HEAD = 40;
    var n = Math.max(1, actors.length);
    // Lanes share the width given (no sideways scroll) down to 64 px each.
    var LANE = Math.max(64, Math.min(190, Math.floor((o.width - LEFT - 24) / n)));
    var xOf = {};
    actors.forEach(function (a, i) { xOf[a] = LEFT + LANE / 2 + i * LANE; });
    function X(a) { return a in xOf ? xOf[a] : LEFT - 10; }
    function Y(k) { return TOP + k * ROW; }
    var width = Math.max(o.width, LEFT + n * LANE + 8);
    var height = Y(last) + ROW;
    chart.textContent = '';
    head.textContent = '';
    head.setAttribute('width', width);
    head.setAttribute('height', HEAD);
    head.appendChild(svg('rect', { x: 0, y: 0, width: width, height: HEAD, class: 'head-bg' }));
    chart.setAttribute('width', width);
    chart.setAttribute('height', height);
    chart.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    var defs = svg('defs');
    var marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
    marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'head' }));
    defs.appendChild(marker);
    chart.appendChild(defs);
    var rows = [], marks = [];
    steps.forEach(function (s) {
      var inCycle = o.cycleStart >= 0 && s.n > o.cycleStart;
      var r = svg('rect', { x: 0, y: Y(s.n) - ROW / 2, width: width, height: ROW, class: 'row' + (s.n === o.failStep || s.failed ? ' fail' : '') + (inCycle ? ' cycle' : '') + (key[s.n] ? ' key' : ''), 'data-step': s.n });
      r.addEventListener('click', function () { o.go(s.n); });
      chart.appendChild(r);
      rows.push(r);
    });
    if (o.cycleStart >= 0) {
      var cy0 = Y(o.cycleStart + 1) - ROW / 2 + 3, cy1 = Y(last) + ROW / 2 - 3;
      chart.appendChild(svg('line', { x1: 36, y1: cy0, x2: 36, y2: cy1, class: 'cycle-bar' }));
      chart.appendChild(svg('text', { x: 40, y: cy0 + 11, class: 'cycle-label', id: 'cycle-label' }, '↻'));
    }
    actors.forEach(function (a) {
      chart.appendChild(svg('line', { x1: X(a), y1: 0, x2: X(a), y2: height, class: 'lifeline' }));
      var chars = Math.floor((LANE - 6) / 7.4);
      var name = svg('text', { x: X(a), y: 16, class: 'actor', 'text-anchor': 'middle', 'data-actor': a }, clip(a, chars));
      name.appendChild(svg('title', null, a + (o.roles[a] ? ': ' + o.roles[a] : '')));
      head.appendChild(name);
      if (o.roles[a]) {
        var role = svg('text', { x: X(a), y: 32, class: 'role', 'text-anchor': 'middle' }, clip(o.roles[a], Math.floor((LANE - 6) / 6)));
        role.appendChild(svg('title', null, a + ': ' + o.roles[a]));
        head.appendChild(role);
      }
    });
    var placer = new Placer();
    var pending = [];
    steps.forEach(function (s) {
      var g = svg('g', { class: 'step' + (key[s.n] ? ' key' : ''), 'data-step': s.n });
      var y = Y(s.n);
      var num = svg('text', { x: 6, y: y + 4, class: 'num' }, s.n === 0 ? 'init' : s.n);
      g.appendChild(num);
      if (s.annotations && s.annotations.length) {
        var mark = svg('text', { x: LEFT - 20, y: y + 4, class: 'annot' }, '✎');
        mark.appendChild(svg('title', null, s.annotations.join('\n')));
        g.appendChild(mark);
      }
      if ((s.kind === 'deliver' || s.kind === 'input' || s.kind === 'drop') && s.from !== undefined) {
        var y0 = s.sentAt >= 0 ? Y(s.sentAt) : y - ROW / 2;
        var x0 = X(s.from), x1 = X(s.actor);
        if (x0 === x1) { x1 = x0 + 30; }
        g.appendChild(svg('line', { x1: x0, y1: y0, x2: x1, y2: y, class: 'msg' + (s.kind === 'drop' ? ' dropped' : s.outcome ? ' faulty' : ''), 'marker-end': 'url(#arrow)' }));
        placer.arrow(x0, y0, x1, y, s.n);
        var text = s.what + (s.outcome ? ' !' + s.outcome : '') + (s.kind === 'drop' ? ' ✗' : '');
        var label = svg('text', { class: 'label', 'text-anchor': 'middle' }, clip(text, 30));
        label.appendChild(svg('title', null, text));
        g.appendChild(label);
        var along = [0.5, 0.35, 0.65, 0.2, 0.8];
        var spots = along.map(function (t) { return [x0 + (x1 - x0) * t, y0 + (y - y0) * t - 4]; }).concat(along.map(function (t) { return [x0 + (x1 - x0) * t, y0 + (y - y0) * t + 12]; }));
        pending.push([label, spots, s.n]);
      } else if (s.kind === 'timer') {
        g.appendChild(svg('circle', { cx: X(s.actor), cy: y, r: 6, class: 'timer' }));
        // xstate's delayed transitions are named xstate.after.<ms>.<state path>: say `after <ms>ms`.
        var after = /^xstate\.after\.(\d+)\./.exec(s.what);
        var tshown = clip('⏲ ' + (after ? 'after ' + after[1] + 'ms' : s.what), 28);
        var tl = svg('text', { class: 'label' }, tshown);
        tl.appendChild(svg('title', null, 'timer ' + s.what));
        g.appendChild(tl);
        var tw = 6.6 * tshown.length;
        pending.push([tl, [[X(s.actor) + 10, y + 4], [X(s.actor) + 10, y - 8], [X(s.actor) - 10 - tw, y + 4], [X(s.actor) - 10 - tw, y - 8], [X(s.actor) + 10, y + 16], [X(s.actor) - 10 - tw, y + 16]], s.n]);
      } else if (s.kind === 'fault') {
        var fl = svg('text', { class: 'label fault', 'text-anchor': 'middle' }, clip('✗ ' + s.what, 24));
        g.appendChild(fl);
        pending.push([fl, [[X(s.actor), y + 5], [X(s.actor), y - 7]], s.n]);
      } else if (s.kind === 'tick' || s.n > 0) {
        var ol = svg('text', { class: 'label' }, s.kind === 'tick' ? '⏱ ' + s.what : clip(s.id, 40));
        g.appendChild(ol);
        pending.push([ol, [[LEFT, y + 4]], s.n]);
      }
      s.moves.forEach(function (m) {
        // A machine with no states of its own has the state text {}: nothing to say.
        if (!(m.actor in xOf) || m.to === '{}') return;
        var mv = svg('text', { class: 'move' }, clip('→ ' + m.after, Math.max(8, Math.floor(LANE / 6.6))));
        mv.appendChild(svg('title', null, m.actor + ': ' + m.change + (m.change === m.from + ' → ' + m.to ? '' : '\nnow ' + m.to)));
        g.appendChild(mv);
        var mx = X(m.actor);
        var back = mx - 6 - 6.6 * Math.min(mv.textContent.length, 40);
        pending.push([mv, [[mx + 6, y + 14], [mx + 6, y - 6], [back, y + 14], [back, y - 6]], s.n]);
      });
      chart.appendChild(g);
      marks.push(g);
    });
    // Place in step order once everything is in the DOM (getBBox needs it there).
    pending.forEach(function (p) { place(placer, p[0], p[1], p[2], width - 60); });
    return { rows: rows, marks: marks, Y: Y, ROW: ROW, HEAD: HEAD };
  };
})();
