// Synthetic but realistic episodes for the retrieval benchmark, and a labelled query set whose right
// answers are known by construction. Deterministic for a given seed.
//
// Background episodes: ten domains with their languages, frameworks and tags; task templates per
// task type, each with several phrasings; English, German, Russian and Japanese text; success,
// partial and failed outcomes; 3 to 8 tool steps with some errors; ages over 180 days. Rewards are
// computed with the real reward function, so seed 003's raw-reward term sees realistic values.
//
// Labelled queries: each is one phrasing of a latent task (template, service, fillers) about a
// service that no background episode mentions, with 17 planted episodes around it. Relevance is a
// property of the latent task alone, never of a signal either ranking reads:
//   3  the same task (template, service and fillers)
//   2  the same template on the same service, with other fillers
//   1  another template on the same service
//   0  everything else: the same template on other services (which share its wording), and
//      failed attempts at the same task (failures come back as warnings, never as results)
// What the rankings do read is drawn for every planted episode from one distribution that does
// not depend on its grade: the text's language and phrasing, the context (the service's domain,
// the query's stack or another one of the domain, tags sampled from the domain), the outcome of a
// completed episode and so its reward, and its age. So neither formula's weights are built into
// the labels (an earlier version graded by domain and stack, the signals our ranking weighs most,
// and gave the relevant episodes worse outcomes than the distractors, which penalised the reward
// term of seed 003's formula).
import { randomUUID } from 'node:crypto';
import { must } from '../src/core/must.ts';
import type { Complexity } from '../src/episodes/limits.ts';
import type { Outcome } from '../src/episodes/outcome.ts';
import type { StepFacts } from '../src/learning/facts.ts';
import { generateReflection, type Reflection } from '../src/learning/reflection.ts';
import { computeReward, type Reward } from '../src/learning/reward.ts';
import type { RetrievalQuery } from '../src/retrieval/score.ts';

export type Rng = () => number;

/** mulberry32: a small seeded PRNG, so every run generates the same data. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An element of a non-empty list (null is a value here: a stack may have no framework). */
function pick<T>(r: Rng, list: readonly T[]): T {
  if (list.length === 0) throw new Error('invariant: pick from an empty list');
  return list[Math.floor(r() * list.length)] as T;
}
const int = (r: Rng, min: number, max: number) => min + Math.floor(r() * (max - min + 1));

function sample<T>(r: Rng, list: readonly T[], n: number): T[] {
  const copy = [...list];
  const out: T[] = [];
  while (out.length < n && copy.length) out.push(must(copy.splice(Math.floor(r() * copy.length), 1)[0]));
  return out;
}

type Lang = 'en' | 'de' | 'ru' | 'ja';

const DOMAINS: Record<string, { stacks: Array<[string, Array<string | null>]>; tags: string[]; tools: string[] }> = {
  web: {
    stacks: [
      ['typescript', ['react', 'nextjs', 'express']],
      ['javascript', ['vue', 'express']],
      ['ruby', ['rails']],
    ],
    tags: ['frontend', 'api', 'ui', 'accessibility', 'ssr'],
    tools: ['npm', 'git', 'editor', 'playwright', 'curl'],
  },
  backend: {
    stacks: [
      ['go', ['gin', 'echo']],
      ['java', ['spring']],
      ['kotlin', ['ktor']],
      ['python', ['django', 'fastapi']],
    ],
    tags: ['api', 'grpc', 'latency', 'auth', 'queue'],
    tools: ['git', 'go', 'gradle', 'pytest', 'curl', 'editor'],
  },
  data: {
    stacks: [
      ['python', ['pandas', 'spark', 'dbt']],
      ['scala', ['spark']],
      ['sql', ['dbt', null]],
    ],
    tags: ['etl', 'warehouse', 'batch', 'schema', 'backfill'],
    tools: ['psql', 'dbt', 'python', 'airflow', 'git'],
  },
  infra: {
    stacks: [
      ['hcl', ['terraform']],
      ['go', ['kubernetes']],
      ['python', ['ansible']],
      ['bash', [null]],
    ],
    tags: ['k8s', 'ci', 'terraform', 'networking', 'secrets'],
    tools: ['kubectl', 'terraform', 'helm', 'docker', 'bash', 'git'],
  },
  mobile: {
    stacks: [
      ['swift', ['swiftui', 'uikit']],
      ['kotlin', ['compose']],
      ['dart', ['flutter']],
    ],
    tags: ['ios', 'android', 'offline', 'push', 'release'],
    tools: ['xcodebuild', 'gradle', 'fastlane', 'git', 'editor'],
  },
  ml: {
    stacks: [['python', ['pytorch', 'tensorflow', 'sklearn']]],
    tags: ['training', 'inference', 'gpu', 'features', 'evaluation'],
    tools: ['python', 'pytest', 'nvidia-smi', 'git', 'jupyter'],
  },
  security: {
    stacks: [
      ['go', [null]],
      ['python', ['django']],
      ['rust', ['tokio']],
    ],
    tags: ['cve', 'auth', 'secrets', 'audit', 'tls'],
    tools: ['semgrep', 'git', 'cargo', 'openssl', 'editor'],
  },
  billing: {
    stacks: [
      ['java', ['spring']],
      ['typescript', ['nestjs']],
      ['ruby', ['rails']],
    ],
    tags: ['invoices', 'payments', 'tax', 'subscriptions', 'refunds'],
    tools: ['git', 'gradle', 'npm', 'psql', 'curl'],
  },
  devtools: {
    stacks: [
      ['rust', ['clap']],
      ['typescript', ['vite']],
      ['go', ['cobra']],
    ],
    tags: ['cli', 'build', 'lint', 'dx', 'plugins'],
    tools: ['cargo', 'npm', 'go', 'git', 'editor'],
  },
  docs: {
    stacks: [
      ['markdown', [null]],
      ['python', ['sphinx']],
    ],
    tags: ['docs', 'tutorial', 'reference', 'i18n', 'examples'],
    tools: ['editor', 'git', 'vale', 'sphinx-build'],
  },
};
const GLOBAL_TAGS = ['flaky', 'regression', 'urgent', 'tech-debt', 'customer'];

interface Template {
  taskType: string;
  /** Phrasings in each language; {svc} {thing} {entity} are filled in. */
  text: Record<Lang, string[]>;
}

const T = (taskType: string, en: string[], de: string[], ru: string[], ja: string[]): Template => ({ taskType, text: { en, de, ru, ja } });

const TEMPLATES: Template[] = [
  T(
    'bugfix',
    [
      'Fix the flaky {thing} test in the {svc} service',
      '{svc}: the {thing} test fails intermittently, fix it',
      'Repair the intermittent {thing} test failure in {svc}',
    ],
    ['Den instabilen {thing}-Test im Dienst {svc} reparieren', 'Der {thing}-Test in {svc} schlägt sporadisch fehl, bitte beheben'],
    ['Исправить нестабильный тест {thing} в сервисе {svc}', 'Тест {thing} в {svc} периодически падает, нужно исправить'],
    ['{svc}サービスの不安定な{thing}テストを修正する', '{svc}の{thing}テストが時々失敗するので直す'],
  ),
  T(
    'bugfix',
    [
      'Fix the crash when {svc} parses an empty {entity} payload',
      '{svc} crashes on an empty {entity} payload; fix the parser',
      'Handle empty {entity} input in the {svc} parser without crashing',
    ],
    ['Absturz beheben, wenn {svc} leere {entity}-Daten verarbeitet', '{svc} stürzt bei leeren {entity}-Daten ab'],
    ['Исправить падение {svc} при пустых данных {entity}', '{svc} падает на пустом {entity}, исправить парсер'],
    ['{svc}が空の{entity}データで落ちる問題を修正する', '空の{entity}入力で{svc}のパーサーがクラッシュする'],
  ),
  T(
    'feature',
    [
      'Add pagination to the {entity} endpoint of {svc}',
      'Implement cursor pagination for the {svc} {entity} listing',
      '{svc}: paginate the {entity} list endpoint',
    ],
    ['Paginierung für den {entity}-Endpunkt von {svc} hinzufügen', 'Cursor-Paginierung für die {entity}-Liste in {svc} einbauen'],
    ['Добавить пагинацию в эндпоинт {entity} сервиса {svc}', 'Сделать постраничный вывод списка {entity} в {svc}'],
    ['{svc}の{entity}エンドポイントにページネーションを追加する', '{svc}の{entity}一覧にカーソルページングを実装する'],
  ),
  T(
    'feature',
    ['Add a CSV export of {entity} records to {svc}', 'Let users export {entity} data from {svc} as CSV', 'Implement {entity} CSV download in {svc}'],
    ['CSV-Export der {entity}-Datensätze in {svc} hinzufügen', '{entity}-Daten aus {svc} als CSV exportieren'],
    ['Добавить экспорт {entity} в CSV в {svc}', 'Выгрузка данных {entity} из {svc} в CSV'],
    ['{svc}に{entity}のCSVエクスポートを追加する', '{svc}から{entity}データをCSVで出力できるようにする'],
  ),
  T(
    'refactor',
    [
      'Extract the {thing} logic of {svc} into its own module',
      'Refactor {svc}: move {thing} handling out of the controller',
      'Split the {thing} code in {svc} into a separate package',
    ],
    ['Die {thing}-Logik von {svc} in ein eigenes Modul auslagern', '{svc} umbauen: {thing}-Behandlung aus dem Controller lösen'],
    ['Вынести логику {thing} из {svc} в отдельный модуль', 'Рефакторинг {svc}: вынести обработку {thing} из контроллера'],
    ['{svc}の{thing}ロジックを別モジュールに切り出す', '{svc}の{thing}処理をコントローラーから分離する'],
  ),
  T(
    'perf',
    [
      'Speed up the slow {entity} query in {svc}',
      'Add an index so the {entity} lookup in {svc} stops timing out',
      '{svc}: {entity} query takes seconds, make it fast',
    ],
    ['Die langsame {entity}-Abfrage in {svc} beschleunigen', 'Index anlegen, damit die {entity}-Suche in {svc} nicht mehr abbricht'],
    ['Ускорить медленный запрос {entity} в {svc}', 'Добавить индекс, чтобы поиск {entity} в {svc} не падал по таймауту'],
    ['{svc}の遅い{entity}クエリを高速化する', '{svc}の{entity}検索がタイムアウトしないようにインデックスを追加する'],
  ),
  T(
    'ops',
    ['Rotate the {thing} credentials used by {svc}', 'Roll out new {thing} secrets for the {svc} deployment', '{svc}: rotate expiring {thing} keys'],
    ['Die {thing}-Zugangsdaten von {svc} rotieren', 'Neue {thing}-Schlüssel für das {svc}-Deployment ausrollen'],
    ['Сменить учётные данные {thing} для {svc}', 'Выкатить новые ключи {thing} для {svc}'],
    ['{svc}が使う{thing}の認証情報をローテーションする', '{svc}の{thing}キーを更新してデプロイする'],
  ),
  T(
    'test',
    ['Raise test coverage of the {svc} {thing} module', 'Write missing unit tests for {thing} in {svc}', 'Cover the {thing} edge cases of {svc} with tests'],
    ['Testabdeckung des {thing}-Moduls in {svc} erhöhen', 'Fehlende Unit-Tests für {thing} in {svc} schreiben'],
    ['Повысить покрытие тестами модуля {thing} в {svc}', 'Написать недостающие тесты для {thing} в {svc}'],
    ['{svc}の{thing}モジュールのテストカバレッジを上げる', '{svc}の{thing}に足りない単体テストを書く'],
  ),
  T(
    'security',
    [
      'Patch the {thing} injection vulnerability in {svc}',
      'Fix the {thing} injection reported against {svc}',
      'Sanitise {thing} input in {svc} to close the injection hole',
    ],
    ['Die {thing}-Injection-Schwachstelle in {svc} schließen', 'Gemeldete {thing}-Injection in {svc} beheben'],
    ['Закрыть уязвимость внедрения через {thing} в {svc}', 'Исправить инъекцию {thing} в {svc}'],
    ['{svc}の{thing}インジェクション脆弱性を修正する', '{svc}の{thing}入力をサニタイズして脆弱性を塞ぐ'],
  ),
  T(
    'data',
    [
      'Migrate the {entity} table schema in {svc}',
      'Backfill missing {entity} rows in the {svc} warehouse',
      'Add a nullable column to the {svc} {entity} table and backfill it',
    ],
    ['Datenbankmigration für die {entity}-Tabelle in {svc} durchführen', 'Fehlende {entity}-Zeilen im {svc}-Warehouse nachladen'],
    ['Перенести схему таблицы {entity} в {svc}', 'Дозаполнить недостающие строки {entity} в хранилище {svc}'],
    ['{svc}の{entity}テーブルのスキーマを移行する', '{svc}の{entity}の欠損行を埋める'],
  ),
  T(
    'docs',
    ['Document the {entity} API of {svc}', 'Write a how-to for the {svc} {entity} endpoints', 'Update the reference docs of {svc} for {entity}'],
    ['Die {entity}-API von {svc} dokumentieren', 'Anleitung für die {entity}-Endpunkte von {svc} schreiben'],
    ['Задокументировать API {entity} в {svc}', 'Написать руководство по эндпоинтам {entity} в {svc}'],
    ['{svc}の{entity} APIを文書化する', '{svc}の{entity}エンドポイントの手順書を書く'],
  ),
];

const FILLERS: Record<Lang, { thing: string[]; entity: string[] }> = {
  en: {
    thing: ['login', 'checkout', 'cache', 'retry', 'upload', 'session', 'token', 'webhook', 'search', 'report', 'SQL', 'header'],
    entity: ['orders', 'invoices', 'users', 'events', 'payments', 'accounts', 'products', 'shipments', 'tickets', 'metrics'],
  },
  de: {
    thing: ['Login', 'Checkout', 'Cache', 'Retry', 'Upload', 'Sitzungs', 'Token', 'Webhook', 'Such', 'Berichts'],
    entity: ['Bestellungen', 'Rechnungen', 'Benutzer', 'Ereignisse', 'Zahlungen', 'Konten', 'Produkte', 'Lieferungen'],
  },
  ru: {
    thing: ['логина', 'оплаты', 'кэша', 'повторов', 'загрузки', 'сессии', 'токена', 'вебхука', 'поиска', 'отчётов'],
    entity: ['заказов', 'счетов', 'пользователей', 'событий', 'платежей', 'аккаунтов', 'товаров', 'поставок'],
  },
  ja: {
    thing: ['ログイン', '決済', 'キャッシュ', 'リトライ', 'アップロード', 'セッション', 'トークン', 'Webhook', '検索', 'レポート'],
    entity: ['注文', '請求書', 'ユーザー', 'イベント', '支払い', 'アカウント', '商品', '出荷'],
  },
};

/** The fillers every language has, in the same order (translations of each other). */
const THINGS = 10;
const ENTITIES = 8;

const SYLLABLES = [
  'va',
  'lo',
  'ri',
  'men',
  'trix',
  'ka',
  'zen',
  'dor',
  'pa',
  'lu',
  'mi',
  'nor',
  'qua',
  'sel',
  'ti',
  'ber',
  'gon',
  'fa',
  'xi',
  'ro',
  'dra',
  'vel',
  'os',
  'kin',
  'tal',
];

/** Distinct pronounceable service names, never reused between the background and the labelled pools. */
function serviceNames(r: Rng, n: number, taken: Set<string>): string[] {
  const names: string[] = [];
  while (names.length < n) {
    const word = Array.from({ length: int(r, 2, 3) }, () => pick(r, SYLLABLES)).join('');
    const name = must(word[0]).toUpperCase() + word.slice(1);
    if (!taken.has(name)) {
      taken.add(name);
      names.push(name);
    }
  }
  return names;
}

export interface Context {
  domain: string;
  language: string;
  framework: string | null;
  tags: string[];
}

interface Task {
  template: number;
  lang: Lang;
  svc: string;
  thing: number;
  entity: number;
}

export interface GeneratedEpisode {
  id: string;
  /** What the judgments compare: the latent task the description was made from. */
  template: number;
  svc: string;
  thing: number;
  entity: number;
  description: string;
  taskType: string;
  context: Context;
  complexity: Complexity;
  status: 'completed' | 'failed';
  outcome: Outcome;
  steps: StepFacts[];
  critique: { verdict: string; score: number; feedback: string | null; virtueScores: [] } | null;
  startedAt: Date;
  endedAt: Date;
  reward: Reward;
  reflection: Reflection;
}

export interface LabelledQuery {
  query: RetrievalQuery;
  /** Relevance of episodes by id, filled in as the episodes are generated (unlisted ids are 0). */
  relevance: Map<string, number>;
  lang: Lang;
  template: number;
  svc: string;
  thing: number;
  entity: number;
}

/** The judgment rule of the header comment: the latent task only. */
export function grade(q: LabelledQuery, e: GeneratedEpisode): number {
  if (e.status !== 'completed' || e.svc !== q.svc) return 0;
  if (e.template !== q.template) return 1;
  const template = must(TEMPLATES[q.template]);
  const same = (filler: 'thing' | 'entity') => !usesFiller(template, filler) || e[filler] === q[filler];
  return same('thing') && same('entity') ? 3 : 2;
}

/** Whether the template's text names this filler (a task's other filler does not change it). */
function usesFiller(template: Template, filler: 'thing' | 'entity'): boolean {
  return must(template.text.en[0]).includes(`{${filler}}`);
}

/** The same template and service with other values for every filler the template names. */
function otherFillers(r: Rng, task: Omit<Task, 'lang'>): Omit<Task, 'lang'> {
  const template = must(TEMPLATES[task.template]);
  const other = (value: number, count: number) => (value + 1 + int(r, 0, count - 2)) % count;
  return {
    ...task,
    thing: usesFiller(template, 'thing') ? other(task.thing, THINGS) : task.thing,
    entity: usesFiller(template, 'entity') ? other(task.entity, ENTITIES) : task.entity,
  };
}

function describe(task: Task, r: Rng): string {
  const template = must(TEMPLATES[task.template]);
  const fill = FILLERS[task.lang];
  return pick(r, template.text[task.lang])
    .replaceAll('{svc}', task.svc)
    .replaceAll('{thing}', must(fill.thing[task.thing % fill.thing.length]))
    .replaceAll('{entity}', must(fill.entity[task.entity % fill.entity.length]));
}

function randomContext(r: Rng, domain = pick(r, Object.keys(DOMAINS))): Context {
  const d = must(DOMAINS[domain]);
  const [language, frameworks] = pick(r, d.stacks);
  const tags = sample(r, d.tags, int(r, 1, 2));
  if (r() < 0.3) tags.push(pick(r, GLOBAL_TAGS));
  return { domain, language, framework: pick(r, frameworks), tags };
}

/** Same domain, another language (or at least another framework). */
function otherStack(r: Rng, c: Context): Context {
  const d = must(DOMAINS[c.domain]);
  const others = d.stacks.filter(([language]) => language !== c.language);
  if (others.length) {
    const [language, frameworks] = pick(r, others);
    return { ...c, language, framework: pick(r, frameworks) };
  }
  const frameworks = must(d.stacks[0])[1].filter((f) => f !== c.framework);
  return { ...c, framework: frameworks.length ? pick(r, frameworks) : null };
}

/** A planted episode's context: the service's domain, the query's stack or another of the domain, sampled tags. */
function plantedContext(r: Rng, query: Context): Context {
  const stack = r() < 0.5 ? query : otherStack(r, query);
  const d = must(DOMAINS[query.domain]);
  return { ...stack, tags: sample(r, d.tags, int(r, 1, 2)) };
}

function textLang(r: Rng): Lang {
  const x = r();
  return x < 0.85 ? 'en' : x < 0.9 ? 'de' : x < 0.95 ? 'ru' : 'ja';
}

const DAY = 86_400_000;

function makeEpisode(r: Rng, task: Task, context: Context, now: number, kind: 'success' | 'partial' | 'failure' | 'random'): GeneratedEpisode {
  const outcomeKind = kind !== 'random' ? kind : r() < 0.75 ? 'success' : r() < 0.4 ? 'partial' : 'failure';
  const tools = must(DOMAINS[context.domain]).tools;
  const stepCount = int(r, 3, 8);
  const errorRate = outcomeKind === 'failure' ? 0.4 : outcomeKind === 'partial' ? 0.2 : 0.08;
  const steps: StepFacts[] = Array.from({ length: stepCount }, (_, i) => {
    const failed = r() < errorRate;
    return {
      stepNumber: i + 1,
      kind: 'tool_call',
      tool: pick(r, tools),
      resultKind: failed ? (r() < 0.2 ? 'timeout' : 'error') : 'success',
      latencyMs: int(r, 20, 4000),
      tokens: int(r, 50, 3000),
      errorClass: failed ? pick(r, ['ExitCode', 'Timeout', 'AssertionError', 'HttpError']) : null,
    };
  });
  const outcome: Outcome =
    outcomeKind === 'success'
      ? { kind: 'success', verdict: 'done', artifacts: sample(r, ['patch.diff', 'test-report.xml', 'coverage.html', 'notes.md'], int(r, 0, 3)) }
      : outcomeKind === 'partial'
        ? { kind: 'partial', verdict: 'partly done', completed: ['step a', 'step b'].slice(0, int(r, 0, 2)), failed: ['step c'] }
        : { kind: 'failure', reason: pick(r, ['tests still failing', 'could not reproduce', 'budget_exceeded']), details: 'gave up' };
  const durationMs = int(r, 10, 1800) * 1000;
  const endedAt = now - Math.floor(r() * 180 * DAY);
  const critique = r() < 0.3 ? { verdict: 'reviewed', score: Math.round(r() * 100) / 100, feedback: null, virtueScores: [] as [] } : null;
  const complexity = pick(r, ['simple', 'moderate', 'complex'] as const);
  const reward = computeReward({ outcome, complexity, steps, durationMs, critique, patternsDiscovered: 0, metadata: {} });
  const reflection = generateReflection({ outcome, steps, durationMs, critique });
  return {
    id: randomUUID(),
    template: task.template,
    svc: task.svc,
    thing: task.thing,
    entity: task.entity,
    description: describe(task, r),
    taskType: must(TEMPLATES[task.template]).taskType,
    context,
    complexity,
    status: outcomeKind === 'failure' ? 'failed' : 'completed',
    outcome,
    steps,
    critique,
    startedAt: new Date(endedAt - durationMs),
    endedAt: new Date(endedAt),
    reward,
    reflection,
  };
}

export interface Dataset {
  queries: LabelledQuery[];
  /** Yields the episodes in chunks (background and planted interleaved), `total` in all. */
  chunks(size: number): Generator<GeneratedEpisode[]>;
  total: number;
}

/** n episodes in all, of which the labelled queries' planted ones (17 per query), judged as they are planted. */
export function generateDataset(n: number, queryCount: number, seed = 42, now = Date.now()): Dataset {
  const r = rng(seed);
  const taken = new Set<string>();
  const background = serviceNames(r, 400, taken);
  const labelled = serviceNames(r, queryCount, taken);
  const planted: GeneratedEpisode[] = [];
  const queries: LabelledQuery[] = labelled.map((svc) => {
    const template = int(r, 0, TEMPLATES.length - 1);
    const task: Task = { template, lang: textLang(r), svc, thing: int(r, 0, THINGS - 1), entity: int(r, 0, ENTITIES - 1) };
    const context = randomContext(r);
    const query: LabelledQuery = {
      query: { description: describe(task, r), taskType: must(TEMPLATES[template]).taskType, context: { ...context } },
      relevance: new Map(),
      lang: task.lang,
      template,
      svc,
      thing: task.thing,
      entity: task.entity,
    };
    // Every planted episode: its own language, context and outcome, drawn the same way whatever its grade.
    const plant = (t: Omit<Task, 'lang'>, kind: 'completed' | 'failure') => {
      const episode = makeEpisode(
        r,
        { ...t, lang: r() < 0.5 ? task.lang : textLang(r) },
        plantedContext(r, context),
        now,
        kind === 'failure' ? 'failure' : r() < 0.75 ? 'success' : 'partial',
      );
      planted.push(episode);
      const g = grade(query, episode);
      if (g > 0) query.relevance.set(episode.id, g);
    };
    const otherTemplate = () => (template + 1 + int(r, 0, TEMPLATES.length - 2)) % TEMPLATES.length;
    for (let i = 0; i < 3; i += 1) plant(task, 'completed'); // 3
    for (let i = 0; i < 3; i += 1) plant(otherFillers(r, task), 'completed'); // 2
    for (let i = 0; i < 3; i += 1) plant({ ...task, template: otherTemplate() }, 'completed'); // 1
    for (let i = 0; i < 6; i += 1) plant({ ...task, svc: pick(r, background), thing: int(r, 0, THINGS - 1), entity: int(r, 0, ENTITIES - 1) }, 'completed'); // 0
    for (let i = 0; i < 2; i += 1) plant(task, 'failure'); // 0
    return query;
  });
  const total = Math.max(n, planted.length);
  return {
    queries,
    total,
    *chunks(size: number) {
      const backgroundCount = total - planted.length;
      // Planted episodes are spread evenly through the load, as they would arrive over time.
      const every = planted.length ? Math.max(1, Math.floor(total / planted.length)) : Infinity;
      let p = 0;
      let b = 0;
      let chunk: GeneratedEpisode[] = [];
      for (let i = 0; i < total; i += 1) {
        const usePlanted = p < planted.length && (i % every === 0 || b >= backgroundCount);
        if (usePlanted) chunk.push(must(planted[p++]));
        else {
          b += 1;
          const task: Task = {
            template: int(r, 0, TEMPLATES.length - 1),
            lang: textLang(r),
            svc: pick(r, background),
            thing: int(r, 0, THINGS - 1),
            entity: int(r, 0, ENTITIES - 1),
          };
          chunk.push(makeEpisode(r, task, randomContext(r), now, 'random'));
        }
        if (chunk.length === size) {
          yield chunk;
          chunk = [];
        }
      }
      if (chunk.length) yield chunk;
    },
  };
}
