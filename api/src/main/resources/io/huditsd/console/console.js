'use strict';
// The hudi-tsd console: three pages (#/tables, #/table/ID, #/runs) drawn from the REST API under /api/v1.
// Every string from the API reaches the page through textContent or Tabulator's sanitising plaintext formatter,
// never as HTML. The bearer token lives in sessionStorage only and is sent in the Authorization header.
(() => {
  const TOKEN_KEY = 'tsd.token';
  const main = document.getElementById('main');
  const message = document.getElementById('message');
  let current = null; // the drawn page's tables/charts, destroyed when another page is drawn

  // ---- helpers -------------------------------------------------------------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([key, value]) => {
      if (value === undefined || value === null || value === false) return;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'onclick') node.addEventListener('click', value);
      else node.setAttribute(key, value === true ? '' : String(value));
    });
    children.flat().forEach(child => {
      if (child === null || child === undefined) return;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    });
    return node;
  }

  function bytes(n) {
    if (n === null || n === undefined) return '';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let value = Number(n);
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
    return (unit === 0 ? String(value) : value.toFixed(1)) + ' ' + units[unit];
  }

  function age(iso) {
    if (!iso) return '';
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (seconds < 120) return seconds + ' s';
    if (seconds < 7200) return Math.round(seconds / 60) + ' min';
    if (seconds < 172800) return Math.round(seconds / 3600) + ' h';
    return Math.round(seconds / 86400) + ' d';
  }

  // Bytes for people, with the exact figure in the title (and data-bytes) for those who need it.
  function bytesCell(cell) {
    const value = cell.getValue();
    return el('span', { title: value + ' bytes', 'data-bytes': value, text: bytes(value) });
  }

  function duration(ms) {
    if (ms === null || ms === undefined) return '';
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }

  function showMessage(text, info) {
    message.textContent = text;
    message.className = info ? 'info' : '';
    message.hidden = false;
  }

  function clearMessage() {
    message.hidden = true;
    message.textContent = '';
  }

  function token() {
    return window.sessionStorage.getItem(TOKEN_KEY) || '';
  }

  // A failed call throws an Error whose message is the API's JSON message, prefixed with the status.
  async function api(method, path, body) {
    const headers = { Accept: 'application/json' };
    if (token()) headers.Authorization = 'Bearer ' + token();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit', cache: 'no-store',
    });
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (!response.ok) {
      const detail = json && json.message ? json.message : (text || response.statusText);
      const error = new Error(response.status + ': ' + detail);
      error.status = response.status;
      throw error;
    }
    return json;
  }

  const get = path => api('GET', path);
  const enc = encodeURIComponent;

  function textCell(cell) {
    const value = cell.getValue();
    return document.createTextNode(value === null || value === undefined ? '' : String(value));
  }

  function tableLink(cell) {
    const id = cell.getValue();
    return el('a', { href: '#/table/' + enc(id), text: id });
  }

  // Tabulator sorts on a header click only: sortable headers get focus and sort on Enter or Space as well.
  function sortableByKeyboard(table) {
    table.on('tableBuilt', () => {
      table.element.querySelectorAll('.tabulator-col.tabulator-sortable').forEach(header => {
        header.setAttribute('tabindex', '0');
        header.setAttribute('role', 'columnheader button');
        header.addEventListener('keydown', event => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            header.click();
          }
        });
      });
    });
    return table;
  }

  function destroyCurrent() {
    if (current) current.forEach(widget => widget.destroy());
    current = [];
  }

  // ---- tables page ---------------------------------------------------------------------------------------------
  function tablesPage() {
    const filter = el('input', { id: 'tables-filter', type: 'search', placeholder: 'id, owner or type' });
    const worst = el('button', { type: 'button', id: 'tables-worst', text: 'Worst first' });
    const refresh = el('button', { type: 'button', id: 'tables-refresh', text: 'Refresh' });
    const count = el('span', { id: 'tables-count', class: 'muted', 'aria-live': 'polite' });
    const holder = el('div', { id: 'tables-table' });
    main.replaceChildren(el('h2', { text: 'Tables' }),
      el('div', { class: 'toolbar' }, el('label', { for: 'tables-filter', text: 'Filter' }), filter, worst, refresh,
        count), holder);
    const num = { hozAlign: 'right', headerSortStartingDir: 'desc' };
    const table = sortableByKeyboard(new window.Tabulator(holder, {
      // Every column has its width: measuring each cell of each page (fitData) took most of the render time.
      layout: 'fitData',
      pagination: true, paginationMode: 'remote', paginationSize: 50, paginationSizeSelector: [25, 50, 100, 250],
      sortMode: 'remote', ajaxURL: '/api/v1/table-list', placeholder: 'No tables',
      ajaxRequestFunc: async (url, config, params) => {
        const size = params.size || 50;
        const sort = (params.sort || []).map(s => (s.dir === 'desc' ? '-' : '') + s.field).join(',');
        const query = new URLSearchParams({ offset: String(((params.page || 1) - 1) * size), limit: String(size) });
        if (sort) query.set('sort', sort);
        if (filter.value.trim()) query.set('q', filter.value.trim());
        const started = performance.now();
        try {
          const page = await get(url + '?' + query);
          window.tsdLastListMillis = performance.now() - started;
          count.textContent = page.total + (page.total === 1 ? ' table' : ' tables');
          clearMessage();
          return { last_page: Math.max(1, Math.ceil(page.total / size)), last_row: page.total, data: page.items };
        } catch (error) {
          showMessage(error.message);
          return { last_page: 1, data: [] };
        }
      },
      columns: [
        { title: 'Table', width: 180, field: 'id', formatter: tableLink, frozen: true },
        { title: 'Unscheduled log', width: 164, field: 'logFileUnscheduledBytes', ...num, formatter: bytesCell },
        { title: 'Scheduled log', width: 149, field: 'logFileScheduledBytes', ...num, formatter: bytesCell },
        { title: 'Compactions', width: 139, field: 'pendingCompactions', ...num },
        { title: 'Clusterings', width: 134, field: 'pendingClusterings', ...num },
        { title: 'Cleans', width: 104, field: 'pendingCleans', ...num },
        { title: 'Indexing', width: 114, field: 'pendingIndexes', ...num },
        { title: 'Oldest plan', width: 129, field: 'oldestPendingPlan', formatter: cell => document.createTextNode(age(cell.getValue())) },
        { title: 'Small files', width: 124, field: 'smallBaseFiles', ...num },
        { title: 'Delta commits', width: 144, field: 'deltaCommitsSinceCompaction', ...num },
        { title: 'Missing indexes', width: 159, field: 'missingIndexes', ...num },
        { title: 'Failed writes', width: 139, field: 'failedWritesPending', ...num },
        { title: 'Poll failures', width: 134, field: 'consecutiveFailures', ...num },
        { title: 'Last poll', width: 114, field: 'lastPoll', formatter: cell => document.createTextNode(age(cell.getValue())) },
        { title: 'Paused', width: 104, field: 'paused', formatter: cell => document.createTextNode(cell.getValue() ? 'paused' : '') },
        { title: 'Owner', width: 134, field: 'owner', formatter: textCell },
        { title: 'Type', width: 89, field: 'tableType', formatter: cell => document.createTextNode(cell.getValue() === 'MERGE_ON_READ' ? 'MOR' : cell.getValue() === 'COPY_ON_WRITE' ? 'COW' : '') },
        { title: 'Version', width: 109, field: 'tableVersion', ...num },
        { title: 'Last error', width: 220, field: 'lastError', formatter: textCell, headerSort: false },
      ],
    }));
    // When the rows of a page are on screen: bench/console-render.sh reads this mark.
    table.on('dataProcessed', () => window.requestAnimationFrame(() => {
      window.tsdTablesRenderedMs = performance.now();
    }));
    let typing = null;
    filter.addEventListener('input', () => {
      window.clearTimeout(typing);
      typing = window.setTimeout(() => table.setData(), 250);
    });
    worst.addEventListener('click', () => { table.clearSort(); table.setData(); });
    refresh.addEventListener('click', () => table.setData());
    current.push(table);
  }

  // ---- one table -----------------------------------------------------------------------------------------------
  async function tablePage(id) {
    const path = '/api/v1/tables/' + enc(id);
    main.replaceChildren(el('h2', { text: 'Table ' + id }), el('p', { class: 'muted', text: 'Loading…' }));
    let view;
    try {
      view = await get(path);
    } catch (error) {
      main.replaceChildren(el('h2', { text: 'Table ' + id }));
      showMessage(error.message);
      return;
    }
    const backlog = view.backlog || {};
    const facts = el('dl', { class: 'facts', id: 'table-facts' });
    const fact = (name, value) => facts.append(el('dt', { text: name }), el('dd', { text: value === undefined || value === null ? '' : value }));
    fact('Base path', view.basePath);
    fact('Type', view.tableType);
    fact('Version', view.tableVersion);
    fact('Owner', view.owner);
    fact('Paused', view.paused ? 'yes' : 'no');
    fact('Last poll', view.lastPoll ? view.lastPoll + ' (' + age(view.lastPoll) + ' ago)' : 'not yet');
    fact('Poll failures', view.consecutiveFailures);
    fact('Last error', view.lastError);
    fact('Unscheduled log bytes', bytes(backlog.logFileUnscheduledBytes));
    fact('Scheduled log bytes', bytes(backlog.logFileScheduledBytes));
    fact('Pending plans', Object.entries(view.pendingPlans || {}).map(([s, n]) => s + ' ' + n).join(', '));
    fact('File groups', backlog.fileGroups);
    fact('Small base files', backlog.smallBaseFiles);
    fact('Delta commits since compaction', backlog.deltaCommitsSinceCompaction);
    fact('Failed writes pending', view.failedWrites ? view.failedWrites.pending.join(', ') : 'none');

    // What the last planning round decided for each service, and why: "below the trigger", "hot file groups left out".
    const decisions = el('dl', { class: 'facts', id: 'table-decisions' });
    Object.entries(view.services || {}).filter(([, s]) => s.lastDecision).forEach(([name, s]) => decisions.append(
      el('dt', { text: name + ': ' + s.lastDecision.decision }), el('dd', { text: s.lastDecision.message })));

    const pause = el('button', { type: 'button', id: 'action-pause', text: view.paused ? 'Resume' : 'Pause' });
    pause.addEventListener('click', () => act(view.paused ? 'resume' : 'pause', () => api('POST', path + '/' + (view.paused ? 'resume' : 'pause'))));
    const service = el('select', { id: 'schedule-service' },
      ['compaction', 'clustering', 'clean', 'index'].map(s => el('option', { value: s, text: s })));
    const preview = el('button', { type: 'button', id: 'schedule-preview', text: 'Preview plan (dry run)' });
    const confirm = el('button', { type: 'button', id: 'schedule-confirm', class: 'primary', text: 'Schedule this plan', disabled: true });
    const previewOut = el('div', { id: 'schedule-result', 'aria-live': 'polite' });
    service.addEventListener('change', () => { confirm.disabled = true; previewOut.replaceChildren(); });
    preview.addEventListener('click', async () => {
      clearMessage();
      try {
        const answer = await api('POST', path + '/schedule', { service: service.value, dryRun: true });
        previewOut.replaceChildren(el('p', { text: answer.message }),
          answer.plan ? el('pre', { id: 'schedule-plan', text: JSON.stringify(answer.plan, null, 2) }) : '');
        confirm.disabled = !answer.plan;
      } catch (error) {
        showMessage(error.message);
      }
    });
    confirm.addEventListener('click', () => act('schedule', async () => {
      const answer = await api('POST', path + '/schedule', { service: service.value, dryRun: false });
      confirm.disabled = true;
      return answer.instant ? 'scheduled ' + answer.instant + ': ' + answer.message : answer.message;
    }));

    const plansBox = el('div', { id: 'table-plans' });
    const runsBox = el('div', { id: 'table-runs' });
    const groupsBox = el('div', { id: 'table-file-groups' });
    const indexesBox = el('div', { id: 'table-indexes' });
    const policyBox = el('div', { id: 'table-policy' });
    const chartBox = el('div', { id: 'table-chart', class: 'chart', role: 'img', 'aria-label': 'Unscheduled log bytes and pending plans over time' });
    main.replaceChildren(
      el('h2', { text: 'Table ' + id }),
      el('div', { class: 'grid2' },
        el('section', { 'aria-labelledby': 'h-state' }, el('h3', { id: 'h-state', text: 'State' }), facts),
        el('section', { 'aria-labelledby': 'h-chart' }, el('h3', { id: 'h-chart', text: 'Backlog over time' }), chartBox)),
      el('section', { 'aria-labelledby': 'h-actions' }, el('h3', { id: 'h-actions', text: 'Actions' }),
        el('div', { class: 'toolbar' }, pause, el('label', { for: 'schedule-service', text: 'Service' }), service, preview, confirm),
        previewOut),
      el('section', { 'aria-labelledby': 'h-decisions' }, el('h3', { id: 'h-decisions', text: 'Last decisions' }), decisions),
      el('section', { 'aria-labelledby': 'h-plans' }, el('h3', { id: 'h-plans', text: 'Plans' }), plansBox),
      el('section', { 'aria-labelledby': 'h-runs' }, el('h3', { id: 'h-runs', text: 'Runs' }), runsBox),
      el('section', { 'aria-labelledby': 'h-groups' }, el('h3', { id: 'h-groups', text: 'File groups' }), groupsBox),
      el('div', { class: 'grid2' },
        el('section', { 'aria-labelledby': 'h-indexes' }, el('h3', { id: 'h-indexes', text: 'Metadata indexes' }), indexesBox),
        el('section', { 'aria-labelledby': 'h-policy' }, el('h3', { id: 'h-policy', text: 'Effective policy' }), policyBox)));

    const policy = el('dl', { class: 'facts' });
    Object.entries(view.effectivePolicy || {}).forEach(([k, v]) => policy.append(el('dt', { text: k }), el('dd', { text: v })));
    policyBox.append(policy);

    await Promise.all([
      get(path + '/plans').then(plans => drawPlans(plansBox, path, plans)).catch(e => showMessage(e.message)),
      get(path + '/runs').then(runs => current.push(runsTable(runsBox, runs, false))).catch(e => showMessage(e.message)),
      get(path + '/file-groups').then(rows => current.push(new window.Tabulator(groupsBox, {
        data: rows, layout: 'fitDataStretch', pagination: true, paginationSize: 20, placeholder: 'No file groups',
        columns: [
          { title: 'Partition', field: 'Partition_Path', formatter: textCell },
          { title: 'File id', field: 'File_ID', formatter: textCell },
          { title: 'Base instant', field: 'Base_Instant_Time', formatter: textCell },
          { title: 'Base file', field: 'Base_File_Size', hozAlign: 'right', formatter: bytesCell },
          { title: 'Log files', field: 'Log_File_Count', hozAlign: 'right' },
          { title: 'Unscheduled log', field: 'Log_File_Unscheduled', hozAlign: 'right', formatter: bytesCell },
          { title: 'Scheduled log', field: 'Log_File_Scheduled', hozAlign: 'right', formatter: bytesCell },
        ],
      }))).catch(e => showMessage(e.message)),
      get(path + '/indexes').then(indexes => {
        const list = el('dl', { class: 'facts' });
        ['wanted', 'built', 'building', 'missing'].forEach(k => list.append(el('dt', { text: k }),
          el('dd', { text: (indexes[k] || []).join(', ') || '—' })));
        indexesBox.append(list);
      }).catch(e => showMessage(e.message)),
      get(path + '/backlog-series').then(series => drawChart(chartBox, series)).catch(e => showMessage(e.message)),
    ]);
  }

  function drawPlans(box, path, plans) {
    if (!plans.length) {
      box.append(el('p', { class: 'muted', text: 'No recent plans.' }));
      return;
    }
    plans.forEach(plan => {
      const pending = plan.state === 'requested' || plan.state === 'inflight';
      const execute = pending ? el('button', { type: 'button', class: 'execute', 'data-instant': plan.instant, text: 'Execute' }) : null;
      if (execute) {
        execute.addEventListener('click', () => act('execute ' + plan.instant, async () => {
          const run = await api('POST', path + '/plans/' + enc(plan.instant) + '/execute');
          return 'queued run ' + run.runId + ' of ' + plan.instant;
        }));
      }
      box.append(el('details', { class: 'plan' },
        el('summary', {}, el('strong', { text: plan.service + ' ' + plan.instant }), ' ', el('span', { class: 'muted', text: plan.state }), ' ', execute),
        el('pre', { text: JSON.stringify(plan, null, 2) })));
    });
  }

  function drawChart(box, series) {
    const samples = series.samples || [];
    if (samples.length < 2) {
      box.append(el('p', { class: 'muted', id: 'chart-empty', text: samples.length + ' sample(s) so far: the chart fills in as polls see changes.' }));
    }
    const data = [samples.map(s => Date.parse(s.at) / 1000), samples.map(s => s.logFileUnscheduledBytes), samples.map(s => s.pendingPlans)];
    const width = Math.max(320, Math.min(box.clientWidth || 560, 720));
    const chart = new window.uPlot({
      width, height: 220,
      scales: { x: { time: true }, bytes: {}, plans: {} },
      series: [{}, { label: 'Unscheduled log bytes', scale: 'bytes', stroke: '#0b4f9c', width: 2, value: (u, v) => bytes(v) },
        { label: 'Pending plans', scale: 'plans', stroke: '#a35a00', width: 2 }],
      axes: [{}, { scale: 'bytes', values: (u, vals) => vals.map(v => bytes(v)), size: 70 }, { scale: 'plans', side: 1, grid: { show: false } }],
    }, data, box);
    current.push(chart);
  }

  // ---- runs ----------------------------------------------------------------------------------------------------
  function runsTable(holder, runs, withTable) {
    const columns = [
      { title: 'Run', field: 'runId', hozAlign: 'right' },
      withTable ? { title: 'Table', field: 'table', formatter: tableLink } : null,
      { title: 'Service', field: 'service', formatter: textCell },
      { title: 'Instant', field: 'instant', formatter: textCell },
      { title: 'Status', field: 'status', formatter: cell => el('span', { class: cell.getValue() === 'failed' ? 'bad' : '', text: cell.getValue() }) },
      { title: 'Engine', field: 'engine', formatter: textCell },
      { title: 'Attempt', field: 'attempt', hozAlign: 'right' },
      { title: 'Started', field: 'startedAt', formatter: textCell },
      { title: 'Duration', field: 'durationMillis', hozAlign: 'right', formatter: cell => {
        const run = cell.getRow().getData();
        return run.status === 'running' && run.startedAt ? 'running ' + age(run.startedAt) : duration(cell.getValue());
      } },
      { title: 'Bytes in', field: 'bytesIn', hozAlign: 'right', formatter: bytesCell },
      { title: 'Bytes out', field: 'bytesOut', hozAlign: 'right', formatter: bytesCell },
      { title: 'Error', field: 'error', formatter: textCell, maxWidth: 420 },
      { title: '', field: 'runId', headerSort: false, formatter: cell => {
        const run = cell.getRow().getData();
        if (run.status !== 'queued') return '';
        const remove = el('button', { type: 'button', class: 'remove', 'data-run': run.runId, text: 'Remove' });
        remove.addEventListener('click', () => act('remove run ' + run.runId, async () => {
          await api('DELETE', '/api/v1/runs/' + enc(run.runId));
          return 'removed queued run ' + run.runId;
        }));
        return remove;
      } },
    ].filter(Boolean);
    return sortableByKeyboard(new window.Tabulator(holder, {
      data: runs, layout: 'fitDataStretch', pagination: true, paginationSize: 50, placeholder: 'No runs', columns,
    }));
  }

  async function runsPage() {
    const status = el('select', { id: 'runs-status' }, ['all', 'running', 'queued', 'failed', 'succeeded', 'cancelled']
      .map(s => el('option', { value: s, text: s })));
    const summary = el('p', { id: 'runs-summary', 'aria-live': 'polite' });
    const holder = el('div', { id: 'runs-table' });
    main.replaceChildren(el('h2', { text: 'Runs' }), summary,
      el('div', { class: 'toolbar' }, el('label', { for: 'runs-status', text: 'Status' }), status), holder);
    let runs;
    try {
      runs = await get('/api/v1/runs');
    } catch (error) {
      showMessage(error.message);
      return;
    }
    const running = runs.filter(r => r.status === 'running');
    const queued = runs.filter(r => r.status === 'queued');
    const failed = runs.filter(r => r.status === 'failed');
    summary.textContent = running.length + ' running, ' + queued.length + ' queued, ' + failed.length + ' failed in recent history'
      + (running.length ? ' — longest running ' + age(running.map(r => r.startedAt).filter(Boolean).sort()[0]) : '');
    const table = runsTable(holder, runs, true);
    status.addEventListener('change', () => {
      if (status.value === 'all') table.clearFilter();
      else table.setFilter('status', '=', status.value);
    });
    current.push(table);
  }

  // ---- actions and routing -------------------------------------------------------------------------------------
  async function act(what, call) {
    clearMessage();
    try {
      const result = await call();
      showMessage(typeof result === 'string' ? result : what + ': done', true);
      window.setTimeout(route, 600);
    } catch (error) {
      showMessage(what + ' failed: ' + error.message);
    }
  }

  function route() {
    destroyCurrent();
    const hash = window.location.hash || '#/tables';
    document.getElementById('nav-tables').removeAttribute('aria-current');
    document.getElementById('nav-runs').removeAttribute('aria-current');
    if (hash.startsWith('#/table/')) {
      tablePage(decodeURIComponent(hash.substring('#/table/'.length)));
    } else if (hash === '#/runs') {
      document.getElementById('nav-runs').setAttribute('aria-current', 'page');
      runsPage();
    } else {
      document.getElementById('nav-tables').setAttribute('aria-current', 'page');
      tablesPage();
    }
  }

  function showTokenState() {
    document.getElementById('token-state').textContent = token() ? 'token set for this tab' : 'no token';
  }

  document.getElementById('token-form').addEventListener('submit', event => {
    event.preventDefault();
    const input = document.getElementById('token');
    if (input.value.trim()) window.sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    input.value = '';
    showTokenState();
    route();
  });
  document.getElementById('token-forget').addEventListener('click', () => {
    window.sessionStorage.removeItem(TOKEN_KEY);
    showTokenState();
  });
  window.addEventListener('hashchange', () => { clearMessage(); route(); });
  showTokenState();
  route();
})();
