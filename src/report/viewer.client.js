/* global document, window */
// The HTML viewer's script. It reads the trace from the JSON island and builds
// every node with createElement/textContent, so no payload is ever parsed as HTML.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var steps = data.steps;
  var last = steps.length - 1;
  var cur = 0;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function json(v) {
    try { return JSON.stringify(v, null, 1); } catch { return String(v); }
  }
  function clip(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '…' : s; }

  // Header: title, property, scenario.
  document.title = data.title;
  document.getElementById('title').textContent = data.title;
  var prop = document.getElementById('property');
  if (data.property) {
    prop.textContent = '✗ ' + data.property.kind + " '" + data.property.name + "' violated: " + data.property.message;
    prop.className = 'violation';
  } else {
    prop.textContent = 'no property violated in this trace';
    prop.className = 'ok';
  }
  document.getElementById('meta').textContent = data.meta;

  // Message sequence chart.
  var actors = data.actors;
  var ROW = 30, TOP = 20, LEFT = 70;
  // Lanes share the visible width (between 90 and 150 px each); wider charts scroll.
  var wrap = document.getElementById('chart-wrap');
  var avail = (wrap && wrap.clientWidth) || 900;
  var LANE = Math.max(90, Math.min(150, Math.floor((avail - LEFT - 100) / Math.max(1, actors.length))));
  var xOf = {};
  actors.forEach(function (a, i) { xOf[a] = LEFT + 60 + i * LANE; });
  function X(a) { return a in xOf ? xOf[a] : LEFT + 20; }
  function Y(n) { return TOP + n * ROW; }
  var width = LEFT + 120 + Math.max(1, actors.length) * LANE;
  var height = Y(last) + ROW;
  var chart = document.getElementById('chart');
  var headSvg = document.getElementById('chart-head');
  headSvg.setAttribute('width', width);
  headSvg.setAttribute('height', 26);
  headSvg.appendChild(svg('rect', { x: 0, y: 0, width: width, height: 26, class: 'head-bg' }));
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
    var inCycle = data.cycleStart >= 0 && s.n > data.cycleStart;
    var r = svg('rect', { x: 0, y: Y(s.n) - ROW / 2, width: width, height: ROW, class: 'row' + (s.n === data.failStep || s.failed ? ' fail' : '') + (inCycle ? ' cycle' : ''), 'data-step': s.n });
    r.addEventListener('click', function () { go(s.n); });
    chart.appendChild(r);
    rows.push(r);
  });
  if (data.cycleStart >= 0) {
    // The cycle of a liveness lasso: a bar along its steps, back to where it started.
    var cy0 = Y(data.cycleStart + 1) - ROW / 2 + 3, cy1 = Y(last) + ROW / 2 - 3;
    chart.appendChild(svg('line', { x1: 40, y1: cy0, x2: 40, y2: cy1, class: 'cycle-bar' }));
    chart.appendChild(svg('text', { x: 44, y: cy0 + 11, class: 'cycle-label', id: 'cycle-label' }, '↻'));
  }
  actors.forEach(function (a) {
    chart.appendChild(svg('line', { x1: X(a), y1: 0, x2: X(a), y2: height, class: 'lifeline' }));
    var name = svg('text', { x: X(a), y: 17, class: 'actor', 'text-anchor': 'middle' }, clip(a, Math.floor(LANE / 7.5)));
    name.appendChild(svg('title', null, a));
    headSvg.appendChild(name);
  });
  steps.forEach(function (s) {
    var g = svg('g', { class: 'step', 'data-step': s.n });
    g.appendChild(svg('text', { x: 8, y: Y(s.n) + 4, class: 'num' }, s.n === 0 ? 'init' : s.n));
    var y = Y(s.n);
    if ((s.kind === 'deliver' || s.kind === 'input' || s.kind === 'drop') && s.from !== undefined) {
      var y0 = s.sentAt >= 0 ? Y(s.sentAt) : y - ROW / 2;
      var x0 = X(s.from), x1 = X(s.actor);
      if (x0 === x1) { x1 = x0 + 30; }
      g.appendChild(svg('line', { x1: x0, y1: y0, x2: x1, y2: y, class: 'msg' + (s.kind === 'drop' ? ' dropped' : s.outcome ? ' faulty' : ''), 'marker-end': 'url(#arrow)' }));
      var label = s.what + (s.outcome ? ' !' + s.outcome : '') + (s.kind === 'drop' ? ' ✗' : '');
      g.appendChild(svg('text', { x: (x0 + x1) / 2, y: (y0 + y) / 2 - 4, class: 'label', 'text-anchor': 'middle' }, clip(label, 28)));
    } else if (s.kind === 'timer') {
      g.appendChild(svg('circle', { cx: X(s.actor), cy: y, r: 6, class: 'timer' }));
      g.appendChild(svg('text', { x: X(s.actor) + 10, y: y + 4, class: 'label' }, clip('⏲ ' + s.what, 28)));
    } else if (s.kind === 'fault') {
      g.appendChild(svg('text', { x: X(s.actor), y: y + 5, class: 'fault', 'text-anchor': 'middle' }, clip('✗ ' + s.what, 24)));
    } else if (s.kind === 'tick') {
      g.appendChild(svg('text', { x: LEFT, y: y + 4, class: 'label' }, '⏱ ' + s.what));
    } else if (s.n > 0) {
      g.appendChild(svg('text', { x: LEFT, y: y + 4, class: 'label' }, clip(s.id, 40)));
    }
    s.moves.forEach(function (m) {
      g.appendChild(svg('text', { x: X(m.actor) + 8, y: y + 13, class: 'move' }, clip('→ ' + m.to, 24)));
    });
    chart.appendChild(g);
    marks.push(g);
  });

  // Controls.
  var slider = document.getElementById('slider');
  slider.max = String(last);
  slider.addEventListener('input', function () { go(Number(slider.value)); });
  document.getElementById('prev').addEventListener('click', function () { go(cur - 1); });
  document.getElementById('next').addEventListener('click', function () { go(cur + 1); });
  document.addEventListener('keydown', function (e) {
    if (e.target === slider) return; // the slider moves itself
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown' || e.key === 'j') { go(cur + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp' || e.key === 'k') { go(cur - 1); e.preventDefault(); }
    else if (e.key === 'Home') { go(0); e.preventDefault(); }
    else if (e.key === 'End') { go(last); e.preventDefault(); }
  });

  function stepText(s) {
    if (s.n === 0) return 'initial world';
    switch (s.kind) {
      case 'deliver': return s.actor + ' ← ' + s.from + '  ' + s.what + (s.outcome ? ' !' + s.outcome : '');
      case 'input': return s.actor + ' ⇐ ' + s.from + '  ' + s.what + ' (input)';
      case 'drop': return s.actor + ' ✗ drop ← ' + s.from + '  ' + s.what;
      case 'timer': return s.actor + ' ⏲ timer ' + s.what;
      case 'fault': return s.actor + ' ✗ ' + s.what;
      case 'tick': return 'time → ' + s.what;
      default: return s.id;
    }
  }

  function render() {
    var s = steps[cur];
    slider.value = String(cur);
    document.getElementById('step-label').textContent = 'step ' + cur + ' / ' + last;
    var title = document.getElementById('step-title');
    var cyc = data.cycleStart >= 0 && cur > data.cycleStart ? (cur === last ? '  ↻ back to the world after step ' + data.cycleStart + ': steps ' + (data.cycleStart + 1) + '..' + last + ' repeat forever' : '  ↻ cycle') : '';
    title.textContent = (cur === 0 ? '' : cur + '  ') + stepText(s) + cyc;
    title.className = s.n === data.failStep || s.failed ? 'fail' : '';
    document.getElementById('step-id').textContent = s.id;
    rows.forEach(function (r, i) { r.classList.toggle('current', i === cur); });
    marks.forEach(function (g, i) { g.classList.toggle('current', i === cur); g.classList.toggle('future', i > cur); });

    var table = document.getElementById('states');
    table.textContent = '';
    var head = el('tr');
    head.appendChild(el('th', null, 'actor'));
    head.appendChild(el('th', null, 'state'));
    table.appendChild(head);
    var moved = {};
    s.moves.forEach(function (m) { moved[m.actor] = m.from; });
    actors.forEach(function (a) {
      if (a === 'env') return;
      var tr = el('tr', { 'data-actor': a });
      if (a in moved || a in s.changed) tr.className = 'moved';
      tr.appendChild(el('td', { class: 'actor' }, a));
      tr.appendChild(el('td', { class: 'state' }, a in s.states ? s.states[a] : '—'));
      table.appendChild(tr);
    });

    var changed = document.getElementById('changed');
    changed.textContent = '';
    var keys = Object.keys(s.changed);
    if (keys.length === 0) changed.appendChild(el('p', { class: 'none' }, 'no context changed at this step'));
    keys.forEach(function (a) {
      changed.appendChild(el('h3', null, a + (a in moved ? ' (' + moved[a] + ' → ' + s.states[a] + ')' : '')));
      changed.appendChild(el('pre', { 'data-actor': a }, json(s.changed[a])));
    });

    var notes = document.getElementById('notes');
    notes.textContent = '';
    s.notes.forEach(function (n) { notes.appendChild(el('li', null, n)); });
    document.getElementById('events').textContent = s.events.map(function (e) { return json(e); }).join('\n');

    if (diffRows) diffRows.forEach(function (tr) { tr.classList.toggle('current', Number(tr.getAttribute('data-a')) === cur && cur > 0); });
    var row = rows[cur];
    if (row && wrap) {
      // Keep the current step in view, a few rows from the top, without moving the page.
      var y = Y(cur) - ROW / 2, top = wrap.scrollTop, h = wrap.clientHeight - 26;
      if (y < top || y + ROW > top + h) wrap.scrollTop = Math.max(0, y - 3 * ROW);
    }
  }

  function go(n) {
    cur = Math.max(0, Math.min(last, n));
    render();
  }

  // Diff against the nearest passing schedule.
  var diffRows = null;
  if (data.passing) {
    var sec = document.getElementById('diff');
    sec.hidden = false;
    var d = data.passing.diff;
    document.getElementById('diff-summary').textContent = d.firstDivergentStep > 0
      ? 'The counterexample first departs from the nearest passing schedule at step ' + d.firstDivergentStep + '.'
      : 'The schedules agree step for step.';
    var tbody = document.getElementById('diff-rows');
    diffRows = [];
    d.rows.forEach(function (r, i) {
      var tr = el('tr', { 'data-a': r.a === undefined ? '' : r.a });
      tr.className = (r.same ? 'same' : 'differ') + (i === d.firstDivergentRow ? ' diverge' : '');
      tr.appendChild(el('td', { class: 'n' }, r.a === undefined ? '' : r.a));
      tr.appendChild(el('td', { class: 'id' }, r.aId === undefined ? '' : r.aId));
      tr.appendChild(el('td', { class: 'n' }, r.b === undefined ? '' : r.b));
      tr.appendChild(el('td', { class: 'id' }, r.bId === undefined ? '' : r.bId));
      if (r.a !== undefined) tr.addEventListener('click', function () { go(r.a); });
      tbody.appendChild(tr);
      diffRows.push(tr);
    });
  }

  var m = /step=(\d+)/.exec(window.location.hash);
  go(m ? Number(m[1]) : 0);
  window.interleaveViewer = { go: go, step: function () { return cur; }, last: last };
})();
