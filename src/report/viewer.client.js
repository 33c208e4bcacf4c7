/* global document, window, drawSequence */
// The HTML viewer's script. It reads the trace from the JSON island and builds
// every node with createElement/textContent, so no payload is ever parsed as HTML.
// The statecharts are static SVG in the page; this script only sets their classes.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var steps = data.steps;
  var last = steps.length - 1;
  var cur = 0;

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function json(v) {
    try { return JSON.stringify(v, null, 1); } catch { return String(v); }
  }
  function json1(v) {
    if (v === undefined) return 'undefined';
    try { return JSON.stringify(v); } catch { return String(v); }
  }
  // The context keys step n changed, per actor, old → new: a trace records only the new
  // values, so the old one is the last recorded before n (records compared key by key).
  function isRecord(v) { return typeof v === 'object' && v !== null && !Array.isArray(v); }
  // The actors whose context (a reducer's state) the trace records.
  var hasContext = {};
  steps.forEach(function (s) { Object.keys(s.changed).forEach(function (a) { hasContext[a] = true; }); });
  function contextChanges(n) {
    var out = {};
    var s = steps[n];
    Object.keys(s.changed).forEach(function (a) {
      var list = [];
      Object.keys(s.changed[a]).forEach(function (k) {
        var known = false, before;
        for (var i = n - 1; i >= 0 && !known; i--) {
          var c = steps[i].changed[a];
          if (c && Object.prototype.hasOwnProperty.call(c, k)) { known = true; before = c[k]; }
        }
        if (known) diff(list, k, before, s.changed[a][k], 0);
        else list.push({ key: k, to: s.changed[a][k], known: false });
      });
      if (list.length) out[a] = list;
    });
    return out;
  }
  function diff(list, key, from, to, depth) {
    if (from === to || json1(from) === json1(to)) return;
    if (depth < 3 && isRecord(from) && isRecord(to)) {
      var ks = Object.keys(from).concat(Object.keys(to).filter(function (k) { return !(k in from); }));
      ks.forEach(function (k) {
        var path = key === '' ? k : key + '.' + k;
        if (!(k in from)) list.push({ key: path, to: to[k], known: false });
        else if (!(k in to)) list.push({ key: path, from: from[k], to: undefined, known: true });
        else diff(list, path, from[k], to[k], depth + 1);
      });
      return;
    }
    list.push({ key: key, from: from, to: to, known: true });
  }
  // A long text cut in the middle (keys differ at their ends), the whole on hover.
  function cut(s, n) {
    s = String(s);
    var span = el('span', null, s.length > n ? s.slice(0, Math.ceil(n * 0.6)) + '…' + s.slice(s.length - Math.floor(n * 0.4)) : s);
    if (s.length > n) { span.setAttribute('title', s); span.className = 'cut'; }
    return span;
  }

  // Header: title, property (and its line from the legend), scenario, parameters, legend.
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
  if (data.propertyNote) document.getElementById('property-note').textContent = data.property.name.split(/\s+/)[0] + ': ' + data.propertyNote;
  document.getElementById('meta').textContent = data.meta;
  var params = document.getElementById('params');
  function showParams(all) {
    params.textContent = '';
    var shown = data.params.filter(function (p) { return all || p.changed; });
    params.appendChild(el('span', { class: 'what' }, all || !data.paramsKnown ? 'parameters: ' : shown.length ? 'parameters (not default): ' : 'parameters: all default'));
    shown.forEach(function (p) { var c = el('span', { class: 'param' + (p.changed && data.paramsKnown ? ' changed' : '') }); c.appendChild(cut(p.k + '=' + p.v, 40)); params.appendChild(c); });
    var hidden = data.params.length - shown.length;
    if (hidden > 0 || all) {
      var b = el('button', { id: 'params-more', class: 'link' }, all ? 'only the changed' : '+ ' + hidden + ' at their defaults');
      b.addEventListener('click', function () { showParams(!all); });
      params.appendChild(b);
    }
  }
  if (data.params.length) showParams(false);
  var legend = document.getElementById('legend');
  if (data.legend.length) {
    document.getElementById('legend-box').hidden = false;
    document.getElementById('legend-summary').textContent = 'what the names mean: ' + data.legend.map(function (l) { return l.actor; }).join(', ');
  }
  data.legend.forEach(function (l) {
    var item = el('span', { class: 'role', 'data-actor': l.actor });
    item.appendChild(el('b', null, l.actor));
    item.appendChild(document.createTextNode(' ' + l.role));
    legend.appendChild(item);
  });

  // Actors that do nothing in the trace are folded; a toggle shows them.
  var idle = data.actors.filter(function (a) { return data.busy.indexOf(a) < 0; });
  var showIdle = false;
  var fold = document.getElementById('fold');
  if (idle.length) {
    fold.hidden = false;
    fold.title = idle.join(', ');
  }
  function shownActors() { return showIdle ? data.actors : data.busy; }

  // Message sequence chart (viewer-seq.client.js), redrawn when the width or the fold changes.
  var wrap = document.getElementById('chart-wrap');
  var chart = document.getElementById('chart');
  var headSvg = document.getElementById('chart-head');
  var seq;
  function drawChart() {
    seq = drawSequence(chart, headSvg, { steps: steps, actors: shownActors(), roles: data.roles, failStep: data.failStep, cycleStart: data.cycleStart, key: data.keySteps, width: (wrap && wrap.clientWidth) || 900, go: go });
    fold.textContent = showIdle ? 'hide ' + idle.length + ' idle actor' + (idle.length > 1 ? 's' : '') : 'show ' + idle.length + ' idle actor' + (idle.length > 1 ? 's' : '') + ' (' + idle.join(', ') + ')';
  }
  fold.addEventListener('click', function () { showIdle = !showIdle; drawChart(); showMachines(); render(); });
  var lastWidth = 0;
  window.addEventListener('resize', function () { if (wrap.clientWidth !== lastWidth) { lastWidth = wrap.clientWidth; drawChart(); render(); } });

  // Statecharts: one figure per machine actor, static SVG in the page.
  var figures = {};
  var machinesBox = document.getElementById('machines');
  data.machines.forEach(function (m) {
    var fig = machinesBox.querySelector('figure[data-actor="' + (window.CSS && window.CSS.escape ? window.CSS.escape(m.actor) : m.actor) + '"]');
    if (!fig) return;
    figures[m.actor] = { fig: fig, m: m, states: fig.querySelectorAll('[data-state]'), edges: fig.querySelectorAll('g.tr') };
    fig.querySelector('figcaption').addEventListener('click', function () { fig.classList.toggle('fit'); });
    if (data.roles[m.actor]) fig.querySelector('figcaption').appendChild(el('span', { class: 'role' }, ' ' + data.roles[m.actor]));
  });
  function showMachines() {
    var shown = shownActors();
    for (var a in figures) figures[a].fig.hidden = shown.indexOf(a) < 0;
  }
  // A page written by `check` without --charts: say so where the charts would be, and how to draw them.
  var leftOut = data.chartsLeftOut || [];
  if (data.machines.length === 0 && leftOut.length > 0) {
    var noCharts = document.getElementById('charts-left-out');
    noCharts.hidden = false;
    noCharts.appendChild(el('p', null, 'Not drawn in this page: the command that wrote it leaves the statecharts out so that it finishes sooner. To draw them, run this from the directory it ran in (it rewrites this page with the charts):'));
    leftOut.forEach(function (c, i) {
      if (i > 0) noCharts.appendChild(el('p', null, 'or check again with the charts:'));
      noCharts.appendChild(el('code', null, c));
    });
    document.getElementById('machines-hint').hidden = true;
  }
  document.getElementById('machines-section').hidden = data.machines.length === 0 && leftOut.length === 0;

  function highlight(s) {
    // The actor this step is about first, then the others in chart order.
    var order = data.machines.map(function (m) { return m.actor; });
    var first = [s.actor, s.from].concat(s.moves.map(function (m) { return m.actor; })).filter(function (a, i, xs) { return a in figures && xs.indexOf(a) === i; });
    first.concat(order.filter(function (a) { return first.indexOf(a) < 0; })).forEach(function (a) { machinesBox.appendChild(figures[a].fig); });
    for (var a in figures) {
      var f = figures[a];
      var text = s.states[a];
      var active = text !== undefined && f.m.active[text] ? f.m.active[text] : [];
      f.states.forEach(function (g) { g.classList.toggle('active', active.indexOf(g.getAttribute('data-state')) >= 0); });
      var taken = f.m.taken[s.n] || [];
      f.edges.forEach(function (g) {
        var on = g.getAttribute('data-t').split(' ').some(function (t) { return taken.indexOf(Number(t)) >= 0; });
        g.classList.toggle('taken', on);
        var p = g.querySelector('path');
        if (p) p.setAttribute('marker-end', 'url(#' + p.getAttribute('data-marker') + (on ? '-ht' : '-h') + ')');
      });
      f.fig.classList.toggle('current', first.indexOf(a) >= 0);
      inView(f.fig);
    }
  }
  // Scrolls a chart drawn at full size so its innermost current state is in the middle.
  function inView(fig) {
    if (fig.hidden || fig.classList.contains('fit')) return;
    var act = fig.querySelectorAll('g.st.active > rect');
    var r = act.length ? act[act.length - 1] : null;
    if (!r) return;
    var b = r.getBBox();
    fig.scrollLeft = Math.max(0, b.x + b.width / 2 - fig.clientWidth / 2);
    fig.scrollTop = Math.max(0, b.y + b.height / 2 - fig.clientHeight / 2);
  }

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
    seq.rows.forEach(function (r, i) { r.classList.toggle('current', i === cur); });
    seq.marks.forEach(function (g, i) { g.classList.toggle('current', i === cur); g.classList.toggle('future', i > cur); });

    var ann = document.getElementById('annotations');
    ann.textContent = '';
    (s.annotations || []).forEach(function (a) { ann.appendChild(el('li', null, a)); });

    var table = document.getElementById('states');
    table.textContent = '';
    var head = el('tr');
    head.appendChild(el('th', null, 'actor'));
    head.appendChild(el('th', null, 'state'));
    table.appendChild(head);
    var moved = {};
    s.moves.forEach(function (m) { moved[m.actor] = m.change; });
    shownActors().forEach(function (a) {
      if (a === 'env') return;
      var tr = el('tr', { 'data-actor': a });
      if (a in moved || a in s.changed) tr.className = 'moved';
      var name = el('td', { class: 'actor' }, a);
      if (data.roles[a]) name.title = data.roles[a];
      tr.appendChild(name);
      // A reducer (a storage actor) or a machine with only a context ('{}') has data but no states: say where its data shows.
      var stateless = a in s.states ? s.states[a] === '{}' : hasContext[a];
      var st = el('td', { class: 'state' }, stateless ? '(no states)' : a in s.states ? s.states[a] : '—');
      if (stateless) st.title = 'it has no states (a reducer, a storage actor or a machine with only a context); what it holds shows under Changed context at the steps that change it, and whole under Events at step 0';
      tr.appendChild(st);
      table.appendChild(tr);
    });

    var changed = document.getElementById('changed');
    changed.textContent = '';
    var byActor = cur === 0 ? {} : contextChanges(cur);
    var keys = Object.keys(byActor);
    if (cur === 0) changed.appendChild(el('p', { class: 'none' }, 'the initial world: each actor\'s initial context is under Events'));
    else if (keys.length === 0) changed.appendChild(el('p', { class: 'none' }, 'no context changed at this step'));
    keys.forEach(function (a) {
      changed.appendChild(el('h3', null, a + (a in moved ? ' (' + moved[a] + ')' : '')));
      var t = el('table', { 'data-actor': a });
      byActor[a].forEach(function (c) {
        var tr = el('tr');
        var key = el('td', { class: 'key' }); key.appendChild(cut(c.key, 40)); tr.appendChild(key);
        var old = el('td', { class: 'old' }); if (c.known) old.appendChild(cut(json1(c.from), 40)); tr.appendChild(old);
        tr.appendChild(el('td', { class: 'arrow' }, c.known ? '→' : '='));
        var now = el('td', { class: 'new' }); now.appendChild(cut(json1(c.to), 40)); tr.appendChild(now);
        t.appendChild(tr);
      });
      changed.appendChild(t);
    });

    var notes = document.getElementById('notes');
    notes.textContent = '';
    s.notes.forEach(function (n) { var li = el('li'); li.appendChild(cut(n, 90)); notes.appendChild(li); });
    document.getElementById('events').textContent = s.events.map(function (e) { return json(e); }).join('\n');
    highlight(s);

    if (diffRows) diffRows.forEach(function (tr) { tr.classList.toggle('current', Number(tr.getAttribute('data-a')) === cur && cur > 0); });
    var row = seq.rows[cur];
    if (row && wrap) {
      // Keep the current step in view, a few rows from the top, without moving the page.
      var y = seq.Y(cur) - seq.ROW / 2, top = wrap.scrollTop, h = wrap.clientHeight - seq.HEAD;
      if (y < top || y + seq.ROW > top + h) wrap.scrollTop = Math.max(0, y - 3 * seq.ROW);
    }
  }

  function go(n) {
    cur = Math.max(0, Math.min(last, n));
    render();
  }

  // Where a nearby passing schedule departs: the first divergence with a few steps of
  // context; the runs of rows around it are folded into one row that opens them.
  var diffRows = null;
  if (data.passing) {
    var sec = document.getElementById('diff');
    sec.hidden = false;
    var d = data.passing.diff;
    document.getElementById('diff-summary').textContent = d.firstDivergentStep > 0
      ? 'A nearby passing schedule (' + data.passing.steps + ' steps) first departs from the counterexample at step ' + d.firstDivergentStep + '.'
      : 'A nearby passing schedule agrees with the counterexample step for step.';
    if (data.passing.note) document.getElementById('diff-note').textContent = 'How it was found: ' + data.passing.note;
    var tbody = document.getElementById('diff-rows');
    diffRows = [];
    var first = d.firstDivergentRow < 0 ? 0 : d.firstDivergentRow;
    var lo = Math.max(0, first - 2), hi = Math.min(d.rows.length - 1, first + 4);
    var rowOf = function (r, i) {
      var tr = el('tr', { 'data-a': r.a === undefined ? '' : r.a });
      tr.className = (r.same ? 'same' : 'differ') + (i === d.firstDivergentRow ? ' diverge' : '');
      tr.appendChild(el('td', { class: 'n' }, r.a === undefined ? '' : r.a));
      var ta = el('td', { class: 'id' }); if (r.aText !== undefined) { ta.appendChild(cut(r.aText, 34)); ta.title = r.aId; } tr.appendChild(ta);
      tr.appendChild(el('td', { class: 'n' }, r.b === undefined ? '' : r.b));
      var tb = el('td', { class: 'id' }); if (r.bText !== undefined) { tb.appendChild(cut(r.bText, 34)); tb.title = r.bId; } tr.appendChild(tb);
      if (r.a !== undefined) tr.addEventListener('click', function () { go(r.a); });
      diffRows.push(tr);
      return tr;
    };
    var folded = function (from, to) {
      if (from > to) return;
      var rows = d.rows.slice(from, to + 1);
      var same = rows.filter(function (r) { return r.same; }).length;
      var tr = el('tr', { class: 'fold' });
      var td = el('td', { colspan: '4' });
      var b = el('button', { class: 'link' }, '⋯ ' + rows.length + ' more row' + (rows.length > 1 ? 's' : '') + (same === rows.length ? ', the same in both' : same ? ' (' + same + ' the same in both)' : ''));
      b.addEventListener('click', function () {
        rows.forEach(function (r, k) { tbody.insertBefore(rowOf(r, from + k), tr); });
        tbody.removeChild(tr);
        render();
      });
      td.appendChild(b);
      tr.appendChild(td);
      tbody.appendChild(tr);
    };
    folded(0, lo - 1);
    for (var i = lo; i <= hi; i++) tbody.appendChild(rowOf(d.rows[i], i));
    folded(hi + 1, d.rows.length - 1);
  }

  drawChart();
  lastWidth = wrap.clientWidth;
  showMachines();
  // A counterexample opens on its failing step (#step=N opens another).
  var m = /step=(\d+)/.exec(window.location.hash);
  go(m ? Number(m[1]) : data.failStep >= 0 ? data.failStep : 0);
  window.interleaveViewer = { go: go, step: function () { return cur; }, last: last };
})();
