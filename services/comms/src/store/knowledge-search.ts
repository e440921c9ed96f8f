import type { Queryable } from "@voiceops/platform";

// Knowledge-base search, all in PostgreSQL (the same SQL on PostgreSQL and PGlite).
//
// mode "fulltext": the chunks matching websearch_to_tsquery(query): every term, with quoted
// phrases, "or" and -word as the caller wrote them, ranked by ts_rank_cd (cover density, terms
// in headings weighing more).
//
// mode "fuzzy", when full-text finds nothing (a question worded unlike the document, or a
// misspelling), two searches whose results are merged by score:
// - the query's terms relaxed: chunks having two or more of them first, then any one, the
//   rarer terms counting more;
// - the query corrected: each word that no document has is replaced by the closest word that
//   one does (the vocabulary's words starting alike, ranked by pg_trgm similarity and edit
//   distance), then searched as above.
//
// score = coverage * (1 + rank / (rank + 1)) / 2, in 0..1: coverage is the share of the query's
// terms the chunk has, each weighted by its inverse document frequency (1 when it has them
// all), and rank is ts_rank_cd; corrected results are scaled by how close the corrections are.
//
// The work of one search is bounded whatever the size of the knowledge base: relaxed
// candidates are drawn through the query's rarest term pairs, then its rarest terms, within
// a budget of chunks, and one step ranks at most CANDIDATE_LIMIT chunks (the oldest, by id,
// when a query matches more: the same ones on PostgreSQL and PGlite).

type SearchMode = "fulltext" | "fuzzy";

interface SearchQuery {
  query: string;
  topK: number;
  sourceIds: string[];
  minScore: number;
}

interface SearchHit {
  chunk_id: string;
  source_id: string;
  source_title: string | null;
  content: string;
  highlight: string;
  score: number;
}

interface SearchOutcome {
  mode: SearchMode;
  results: SearchHit[];
}

/** Weights of ts_rank_cd for D (body), C, B, A (headings) labels. */
const WEIGHTS = "{0.2, 0.4, 0.6, 1.0}";
const HEADLINE_OPTIONS =
  'StartSel=<b>, StopSel=</b>, MaxWords=40, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" ... "';
/** Most chunks one step scores. */
const CANDIDATE_LIMIT = 500;
/** Chunks (estimated) a relaxed search draws through term pairs, and through single terms. */
const PAIR_BUDGET = 400;
const SINGLE_BUDGET = 300;
/** Terms (the rarest) whose pairs draw candidates. */
const PAIR_TERMS = 8;
/** Words shorter than this are never corrected (too many near neighbours). */
const MIN_CORRECTED_LENGTH = 3;
/** Most similar vocabulary words looked at for each word to correct (per prefix). */
const NEIGHBOURS = 20;

/** A tsquery operand for one lexeme, quoted as tsquery input wants. */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** A query without websearch operators: quoted phrases, "or", -word. */
export function isPlainQuery(query: string): boolean {
  return !/["]|(^|\s)-\S|(^|\s)or(\s|$)/i.test(query);
}

/** The words of a text as the vocabulary stores them: lower case, letters only. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/\p{L}+/gu) ?? [];
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      let best = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** Edits a misspelling of a word this long may have. */
function allowedEdits(length: number): number {
  return length <= 4 ? 1 : length <= 8 ? 2 : 3;
}

/** A query as the database reads it. */
interface Analysis {
  /** websearch_to_tsquery, as text. */
  strict: string;
  /** The query's lexemes with their document frequency and weight (inverse document frequency). */
  terms: { lexeme: string; df: number; idf: number }[];
  /** Chunks of the organization's ready sources. */
  total: number;
  plain: boolean;
}

interface Step {
  /** tsquery text the chunks must match, or the query text itself when `websearch`. */
  match: string;
  /** tsquery text of the ranking and the highlight (unused when `websearch`). */
  rank: string;
  /** match is a query in websearch_to_tsquery syntax, which also ranks and highlights. */
  websearch?: boolean;
  /** Terms (tsquery text each) and their weights, for the coverage; empty = coverage 1. */
  terms: string[];
  weights: number[];
}

export class KnowledgeSearchStore {
  async search(db: Queryable, orgId: string, q: SearchQuery): Promise<SearchOutcome> {
    // The query's statistics are read while its strict search runs (on a pool, side by side).
    const [typed, strict] = await Promise.all([
      this.analyze(db, orgId, q.query),
      this.run(db, orgId, q, strictStep(q.query), 1, []),
    ]);
    if (!typed) return { mode: "fulltext", results: [] };
    if (strict.length > 0) return { mode: "fulltext", results: strict };

    const [relaxed, corrected] = await Promise.all([
      typed.plain ? this.relaxed(db, orgId, q, typed, 1) : Promise.resolve([]),
      this.correct(db, orgId, q.query),
    ]);
    let fixed: SearchHit[] = [];
    if (corrected) {
      const [query, hits] = await Promise.all([
        this.analyze(db, orgId, corrected.text),
        this.run(db, orgId, q, strictStep(corrected.text), corrected.closeness, []),
      ]);
      fixed = hits;
      if (query && fixed.length === 0 && query.plain)
        fixed = await this.relaxed(db, orgId, q, query, corrected.closeness);
    }
    return { mode: "fuzzy", results: best([...relaxed, ...fixed], q.topK) };
  }

  /** The tsquery of a text and the weights of its terms; undefined when it has no searchable term (only stop words). */
  private async analyze(db: Queryable, orgId: string, text: string): Promise<Analysis | undefined> {
    const result = await db.query<{ strict: string; lexemes: string[]; dfs: number[]; total: number }>(
      `WITH q AS (SELECT websearch_to_tsquery('english', $2) AS strict, coalesce(tsvector_to_array(to_tsvector('english', $2)), '{}') AS lexemes)
       SELECT q.strict::text AS strict, q.lexemes,
              ARRAY(SELECT coalesce((SELECT sum(t.chunks) FROM comms.knowledge_terms t WHERE t.org_id = $1 AND t.lexeme = l.lexeme), 0)::int
                    FROM unnest(q.lexemes) WITH ORDINALITY AS l(lexeme, n) ORDER BY l.n) AS dfs,
              (SELECT coalesce(sum(chunk_count), 0)::int FROM comms.knowledge_sources WHERE org_id = $1 AND status = 'ready') AS total
       FROM q`,
      [orgId, text],
    );
    const row = result.rows[0];
    if (!row || row.strict.trim() === "" || row.lexemes.length === 0) return undefined;
    const total = Math.max(1, Number(row.total));
    const terms = row.lexemes.map((lexeme, i) => {
      const df = Number(row.dfs[i] ?? 0);
      // A term no chunk has weighs as much as the rarest one could.
      return { lexeme, df, idf: Math.log(1 + total / Math.max(1, df)) };
    });
    return { strict: row.strict, terms, total, plain: isPlainQuery(text) };
  }

  /**
   * Chunks having two or more of the query's terms (drawn through its rarest pairs), then, when
   * those are too few, chunks having one (drawn through its rarest terms), by weighted coverage.
   */
  private async relaxed(
    db: Queryable,
    orgId: string,
    q: SearchQuery,
    query: Analysis,
    closeness: number,
  ): Promise<SearchHit[]> {
    const present = query.terms
      .filter((term) => term.df > 0)
      .sort((a, b) => a.df - b.df || (a.lexeme < b.lexeme ? -1 : 1));
    if (present.length === 0) return [];
    const coverage = {
      rank: query.terms.map((t) => quoteLexeme(t.lexeme)).join(" | "),
      terms: query.terms.map((t) => quoteLexeme(t.lexeme)),
      weights: query.terms.map((t) => t.idf),
    };
    const found: SearchHit[] = [];
    if (present.length >= 2) {
      const rare = present.slice(0, PAIR_TERMS);
      const pairs: { match: string; estimate: number }[] = [];
      for (let i = 0; i < rare.length; i++) {
        for (let j = i + 1; j < rare.length; j++) {
          const a = rare[i] as (typeof rare)[number];
          const b = rare[j] as (typeof rare)[number];
          pairs.push({
            match: `(${quoteLexeme(a.lexeme)} & ${quoteLexeme(b.lexeme)})`,
            estimate: (a.df * b.df) / query.total,
          });
        }
      }
      pairs.sort((a, b) => a.estimate - b.estimate);
      found.push(
        ...(await this.run(
          db,
          orgId,
          q,
          { match: withinBudget(pairs, PAIR_BUDGET).join(" | "), ...coverage },
          closeness,
          [],
        )),
      );
    }
    if (found.length < q.topK) {
      const singles = withinBudget(
        present.map((t) => ({ match: quoteLexeme(t.lexeme), estimate: t.df })),
        SINGLE_BUDGET,
      );
      found.push(
        ...(await this.run(
          db,
          orgId,
          q,
          { match: singles.join(" | "), ...coverage },
          closeness,
          found.map((hit) => hit.chunk_id),
        )),
      );
    }
    return best(found, q.topK);
  }

  /** One step: the best chunks matching step.match (among CANDIDATE_LIMIT), scored, with their text and highlight. */
  private async run(
    db: Queryable,
    orgId: string,
    q: SearchQuery,
    step: Step,
    closeness: number,
    exclude: string[],
  ): Promise<SearchHit[]> {
    const total = step.weights.reduce((sum, w) => sum + w, 0);
    // With a websearch query, $3 is the query text again (every parameter must be used).
    const params: unknown[] = [
      orgId,
      step.match,
      step.websearch ? step.match : step.rank,
      q.topK - exclude.length,
      closeness,
      q.minScore,
    ];
    const match = step.websearch ? "websearch_to_tsquery('english', $2)" : "$2::tsquery";
    const rank = step.websearch ? "websearch_to_tsquery('english', $3)" : "$3::tsquery";
    const where = ["c.org_id = $1", `c.tsv @@ ${match}`];
    let coverage = "1.0";
    if (step.terms.length > 0 && total > 0) {
      params.push(
        step.terms,
        step.weights.map((w) => w / total),
      );
      coverage = `coalesce((SELECT sum(t.weight) FROM unnest($${params.length - 1}::tsquery[], $${params.length}::float8[]) AS t(term, weight) WHERE c.tsv @@ t.term), 0)`;
    }
    if (q.sourceIds.length > 0) {
      params.push(q.sourceIds);
      where.push(`c.source_id = ANY($${params.length}::uuid[])`);
    }
    if (exclude.length > 0) {
      params.push(exclude);
      where.push(`NOT (c.id = ANY($${params.length}::uuid[]))`);
    }
    const result = await db.query<SearchHit>(
      `WITH picked AS MATERIALIZED (
         SELECT c.id FROM comms.knowledge_chunks c
         WHERE ${where.join(" AND ")}
         ORDER BY c.id
         LIMIT ${CANDIDATE_LIMIT}),
       candidates AS MATERIALIZED (
         SELECT c.id, c.source_id, ${coverage} AS coverage, ts_rank_cd('${WEIGHTS}'::float4[], c.tsv, ${rank}, 32) AS rank
         FROM picked p JOIN comms.knowledge_chunks c ON c.id = p.id),
       top AS (
         SELECT c.id, c.source_id, $5::float8 * c.coverage * (1 + c.rank) / 2 AS score
         FROM candidates c JOIN comms.knowledge_sources s ON s.id = c.source_id AND s.status = 'ready'
         WHERE $5::float8 * c.coverage * (1 + c.rank) / 2 >= $6::float8
         ORDER BY score DESC, c.id
         LIMIT $4)
       SELECT top.id AS chunk_id, top.source_id, s.title AS source_title, ch.content, top.score,
              ts_headline('english', ch.content, ${rank}, '${HEADLINE_OPTIONS}') AS highlight
       FROM top
       JOIN comms.knowledge_chunks ch ON ch.id = top.id
       JOIN comms.knowledge_sources s ON s.id = top.source_id
       ORDER BY top.score DESC, top.id`,
      params,
    );
    return result.rows.map((row) => ({ ...row, score: Math.min(1, Math.max(0, Number(row.score))) }));
  }

  /**
   * The query with each word that no document has (its lexeme is in no chunk) replaced by the
   * closest word of the organization's documents. Candidates are the vocabulary's words that
   * start like the typed one (its first two letters, or those two swapped) and are about as
   * long, ranked by pg_trgm similarity; the one fewest edits away wins (a misspelling has at
   * most 1 to 3, by length), then the most similar, then the most common. Words without such a
   * neighbour stay as typed. Undefined when nothing could be corrected. closeness is the mean
   * over the query's words of 1 - edits / length (1 for a word kept as typed).
   */
  private async correct(
    db: Queryable,
    orgId: string,
    text: string,
  ): Promise<{ text: string; closeness: number } | undefined> {
    const words = [...new Set(wordsOf(text))];
    if (words.length === 0) return undefined;
    const probes: { word: string; lo: string; hi: string }[] = [];
    for (const word of words) {
      for (const prefix of prefixesOf(word))
        probes.push({
          word,
          lo: prefix,
          hi: `${prefix.slice(0, -1)}${String.fromCodePoint((prefix.codePointAt(prefix.length - 1) ?? 0) + 1)}`,
        });
    }
    const result = await db.query<{
      word: string;
      stop: boolean;
      known: boolean;
      candidate: string | null;
      similarity: number | null;
      sources: number | null;
    }>(
      `WITH q AS (
         SELECT p.word, p.lo, p.hi, coalesce(tsvector_to_array(to_tsvector('english', p.word)), '{}') AS lexemes
         FROM unnest($2::text[], $3::text[], $4::text[]) AS p(word, lo, hi)),
       k AS (
         SELECT q.*, q.lexemes = '{}' AS stop,
                EXISTS (SELECT 1 FROM comms.knowledge_terms t WHERE t.org_id = $1 AND t.lexeme = ANY(q.lexemes)) AS known
         FROM q)
       SELECT k.word, k.stop, k.known, n.word AS candidate, n.similarity, n.sources
       FROM k LEFT JOIN LATERAL (
         SELECT w.word, similarity(w.word, k.word) AS similarity, w.sources
         FROM comms.knowledge_words w
         WHERE NOT k.stop AND NOT k.known AND length(k.word) >= $5 AND w.org_id = $1
           AND w.word COLLATE "C" >= k.lo AND w.word COLLATE "C" < k.hi
           AND length(w.word) BETWEEN length(k.word) - 2 AND length(k.word) + 2
         ORDER BY similarity(w.word, k.word) DESC, w.sources DESC, w.word
         LIMIT $6) n ON true`,
      [
        orgId,
        probes.map((p) => p.word),
        probes.map((p) => p.lo),
        probes.map((p) => p.hi),
        MIN_CORRECTED_LENGTH,
        NEIGHBOURS,
      ],
    );
    const byWord = new Map<
      string,
      { stop: boolean; known: boolean; best?: { word: string; edits: number; similarity: number; sources: number } }
    >();
    for (const row of result.rows) {
      const entry = byWord.get(row.word) ?? { stop: row.stop, known: row.known };
      byWord.set(row.word, entry);
      if (!row.candidate) continue;
      const edits = editDistance(row.word, row.candidate);
      if (edits > allowedEdits(row.word.length)) continue;
      const candidate = {
        word: row.candidate,
        edits,
        similarity: Number(row.similarity ?? 0),
        sources: Number(row.sources ?? 0),
      };
      const current = entry.best;
      if (
        !current ||
        edits < current.edits ||
        (edits === current.edits &&
          (candidate.similarity > current.similarity ||
            (candidate.similarity === current.similarity && candidate.sources > current.sources)))
      ) {
        entry.best = candidate;
      }
    }
    const replacements = new Map<string, string>();
    let closeness = 0;
    let counted = 0;
    for (const [word, entry] of byWord) {
      if (entry.stop) continue;
      counted++;
      if (entry.known) closeness += 1;
      else if (entry.best) {
        replacements.set(word, entry.best.word);
        closeness += Math.max(0, 1 - entry.best.edits / Math.max(word.length, entry.best.word.length));
      }
    }
    if (replacements.size === 0 || counted === 0) return undefined;
    const rewritten = text.replace(/\p{L}+/gu, (word) => replacements.get(word.toLowerCase()) ?? word);
    return { text: rewritten, closeness: closeness / counted };
  }
}

/** Where the vocabulary is searched for a word's corrections: its first two letters, and those swapped. */
function prefixesOf(word: string): string[] {
  const letters = [...word];
  if (letters.length < 4) return [letters[0] ?? ""];
  const [a = "", b = ""] = letters;
  return a === b ? [a + b] : [a + b, b + a];
}

/** The strict step: every term of the query as written (websearch_to_tsquery), ranked by cover density. */
function strictStep(text: string): Step {
  return { match: text, rank: "", websearch: true, terms: [], weights: [] };
}

/** The cheapest options whose estimates fit the budget (always the cheapest one). */
function withinBudget(options: { match: string; estimate: number }[], budget: number): string[] {
  const chosen: string[] = [];
  let spent = 0;
  for (const option of options) {
    if (chosen.length > 0 && spent + option.estimate > budget) break;
    chosen.push(option.match);
    spent += option.estimate;
  }
  return chosen;
}

/** The best hits, one per chunk, by score (then chunk id). */
function best(hits: SearchHit[], topK: number): SearchHit[] {
  const byChunk = new Map<string, SearchHit>();
  for (const hit of hits) {
    const seen = byChunk.get(hit.chunk_id);
    if (!seen || seen.score < hit.score) byChunk.set(hit.chunk_id, hit);
  }
  return [...byChunk.values()].sort((a, b) => b.score - a.score || (a.chunk_id < b.chunk_id ? -1 : 1)).slice(0, topK);
}
