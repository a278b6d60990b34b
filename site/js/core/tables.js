// Generated from engine/fields.py by `python build.py --write-tables`; do not edit.
// The build writes dist/js/tables.js afresh; tests/test_fields.py checks this copy.

/**
 * @typedef {object} Policy
 * @property {string} question  Question
 * @property {string} tenant  Active tenant
 * @property {"semantic" | "episodic" | "procedural" | "working" | "all"} store  Memory store
 * @property {boolean} previous_sessions  Include previous sessions
 * @property {number} max_age_hours  Maximum age
 * @property {boolean} latest_per_key  Keep latest fact per key
 * @property {number} as_of_hours  As of
 * @property {"written" | "true"} latest_by  Latest by
 * @property {"tfidf" | "bm25" | "embedding" | "hybrid"} scorer  Scorer
 * @property {number} bm25_k1  BM25 k1
 * @property {number} bm25_b  BM25 b
 * @property {number} min_similarity  Minimum similarity
 * @property {number} rrf_k  RRF k
 * @property {"seed" | "generative-agents"} blend  Score
 * @property {number} recency_weight  Recency weight
 * @property {number} ga_decay  Recency decay per hour
 * @property {number} ga_recency_weight  Weight of recency
 * @property {number} ga_importance_weight  Weight of importance
 * @property {number} ga_relevance_weight  Weight of relevance
 * @property {number} budget_words  Context word budget
 * @property {number} max_records  Maximum retrieved records
 * @property {number} mmr_lambda  Diversity (MMR λ)
 * @property {string} question_text  Your question
 */

/** @type {readonly import('./state.js').FieldRow[]} */
export const FIELD_TABLE = Object.freeze([
  {
    "name": "question",
    "kind": "choice",
    "label": "Question",
    "help": "question id",
    "unit": "",
    "control": "select",
    "default": null,
    "choicesFrom": "questions"
  },
  {
    "name": "tenant",
    "kind": "choice",
    "label": "Active tenant",
    "help": "active tenant id, a hard filter",
    "unit": "",
    "control": "select",
    "default": null,
    "choicesFrom": "tenants"
  },
  {
    "name": "store",
    "kind": "choice",
    "label": "Memory store",
    "help": "memory store to read",
    "unit": "",
    "control": "select",
    "default": "working",
    "choices": [
      [
        "semantic",
        "Semantic facts"
      ],
      [
        "episodic",
        "Episodic events"
      ],
      [
        "procedural",
        "Procedural steps"
      ],
      [
        "working",
        "Working context"
      ],
      [
        "all",
        "All stores"
      ]
    ]
  },
  {
    "name": "previous_sessions",
    "kind": "bool",
    "label": "Include previous sessions",
    "help": "include records from previous sessions",
    "unit": "",
    "control": "checkbox",
    "default": false
  },
  {
    "name": "max_age_hours",
    "kind": "number",
    "label": "Maximum age",
    "help": "exclude records older than this many hours, inclusive",
    "unit": "hours, inclusive",
    "control": "number",
    "default": 168,
    "min": 0,
    "max": 100000,
    "step": "any"
  },
  {
    "name": "latest_per_key",
    "kind": "bool",
    "label": "Keep latest fact per key",
    "help": "exclude a keyed fact when a newer record of the same tenant and key exists",
    "unit": "",
    "control": "checkbox",
    "default": true
  },
  {
    "name": "as_of_hours",
    "kind": "number",
    "label": "As of",
    "help": "ask as the agent would have this many hours ago: a record written later did not exist yet, and every age counts from then (0 is now; past the oldest record nothing existed yet)",
    "unit": "hours ago; 0 is now",
    "control": "number",
    "default": 0,
    "min": 0,
    "max": 100000,
    "step": "any"
  },
  {
    "name": "latest_by",
    "kind": "choice",
    "label": "Latest by",
    "help": "which time makes a record of a key the latest: when it was written (the agent learnt it) or when its fact became true in the world; by the time true, a fact not yet true at the as-of is left out",
    "unit": "",
    "control": "select",
    "default": "written",
    "choices": [
      [
        "written",
        "When it was written"
      ],
      [
        "true",
        "When it became true"
      ]
    ]
  },
  {
    "name": "scorer",
    "kind": "choice",
    "label": "Scorer",
    "help": "how a record is matched to the question before blending with recency: by shared words (TF-IDF, BM25), by meaning (a static embedding), or both ranks fused (hybrid)",
    "unit": "",
    "control": "select",
    "default": "tfidf",
    "choices": [
      [
        "tfidf",
        "TF-IDF cosine"
      ],
      [
        "bm25",
        "BM25 (as Lucene scores it)"
      ],
      [
        "embedding",
        "Static embedding (meaning)"
      ],
      [
        "hybrid",
        "Hybrid: BM25 + embedding (RRF)"
      ]
    ]
  },
  {
    "name": "bm25_k1",
    "kind": "number",
    "label": "BM25 k1",
    "help": "BM25 term-frequency saturation: 0 counts a term once however often it occurs",
    "unit": "saturation: higher lets repeated terms count for more",
    "control": "number",
    "default": 1.2,
    "min": 0,
    "max": 3,
    "step": "0.1",
    "shownWith": [
      "scorer",
      "bm25"
    ]
  },
  {
    "name": "bm25_b",
    "kind": "number",
    "label": "BM25 b",
    "help": "BM25 length normalisation: 0 ignores a record's length, 1 divides fully by it",
    "unit": "length normalisation, 0 to 1",
    "control": "number",
    "default": 0.75,
    "min": 0,
    "max": 1,
    "step": "0.05",
    "shownWith": [
      "scorer",
      "bm25"
    ]
  },
  {
    "name": "min_similarity",
    "kind": "number",
    "label": "Minimum similarity",
    "help": "embedding cosine a record needs to be matched: below it, it is excluded at any recency weight",
    "unit": "cosine with the question, 0 to 1",
    "control": "number",
    "default": 0.35,
    "min": 0,
    "max": 1,
    "step": "0.05",
    "shownWith": [
      "scorer",
      [
        "embedding",
        "hybrid"
      ]
    ]
  },
  {
    "name": "rrf_k",
    "kind": "int",
    "label": "RRF k",
    "help": "Reciprocal Rank Fusion constant: a record adds 1/(k + rank) for each ranking it is in",
    "unit": "higher lets lower ranks count for more",
    "control": "number",
    "default": 60,
    "min": 1,
    "max": 100,
    "step": "1",
    "shownWith": [
      "scorer",
      "hybrid"
    ]
  },
  {
    "name": "blend",
    "kind": "choice",
    "label": "Score",
    "help": "how a record's score is made from its relevance: blended with recency (seed), or recency, importance and relevance each min-max normalised and weighted (generative-agents)",
    "unit": "",
    "control": "select",
    "default": "seed",
    "choices": [
      [
        "seed",
        "Relevance blended with recency"
      ],
      [
        "generative-agents",
        "Generative Agents: recency + importance + relevance"
      ]
    ]
  },
  {
    "name": "recency_weight",
    "kind": "number",
    "label": "Recency weight",
    "help": "blend weight of recency in the score",
    "unit": "0 ranks on cosine alone, 1 on recency alone",
    "control": "range",
    "default": 0.0,
    "min": 0,
    "max": 1,
    "step": "0.05",
    "shownWith": [
      "blend",
      "seed"
    ]
  },
  {
    "name": "ga_decay",
    "kind": "number",
    "label": "Recency decay per hour",
    "help": "Generative Agents' recency: this number to the power of the record's age in hours, before normalising",
    "unit": "per hour: 0.995, the paper's, halves recency in about 138 hours",
    "control": "number",
    "default": 0.995,
    "min": 0.5,
    "max": 1,
    "step": "0.001",
    "shownWith": [
      "blend",
      "generative-agents"
    ]
  },
  {
    "name": "ga_recency_weight",
    "kind": "number",
    "label": "Weight of recency",
    "help": "Generative Agents' weight of the normalised recency",
    "unit": "times recency, normalised to 0–1",
    "control": "number",
    "default": 1.0,
    "min": 0,
    "max": 10,
    "step": "0.5",
    "shownWith": [
      "blend",
      "generative-agents"
    ]
  },
  {
    "name": "ga_importance_weight",
    "kind": "number",
    "label": "Weight of importance",
    "help": "Generative Agents' weight of the normalised importance",
    "unit": "times importance, normalised to 0–1",
    "control": "number",
    "default": 1.0,
    "min": 0,
    "max": 10,
    "step": "0.5",
    "shownWith": [
      "blend",
      "generative-agents"
    ]
  },
  {
    "name": "ga_relevance_weight",
    "kind": "number",
    "label": "Weight of relevance",
    "help": "Generative Agents' weight of the normalised relevance",
    "unit": "times relevance, normalised to 0–1",
    "control": "number",
    "default": 1.0,
    "min": 0,
    "max": 10,
    "step": "0.5",
    "shownWith": [
      "blend",
      "generative-agents"
    ],
    "presets": [
      {
        "label": "Use the published code's weights",
        "note": "0.5, 2 and 3: recency, importance and relevance as joonspk-research/generative_agents weighs them in retrieve.py",
        "values": {
          "ga_recency_weight": 0.5,
          "ga_importance_weight": 2.0,
          "ga_relevance_weight": 3.0
        }
      }
    ]
  },
  {
    "name": "budget_words",
    "kind": "int",
    "label": "Context word budget",
    "help": "context word budget: the tray's words may add up to this",
    "unit": "words",
    "control": "number",
    "default": 40,
    "min": 0,
    "max": 500,
    "step": "1"
  },
  {
    "name": "max_records",
    "kind": "int",
    "label": "Maximum retrieved records",
    "help": "maximum records in the tray",
    "unit": "records",
    "control": "number",
    "default": 3,
    "min": 1,
    "max": 50,
    "step": "1"
  },
  {
    "name": "mmr_lambda",
    "kind": "number",
    "label": "Diversity (MMR λ)",
    "help": "maximal marginal relevance: the tray takes in turn the record with the highest λ × score − (1 − λ) × its highest similarity to a record already in it; 1 packs by score alone",
    "unit": "1 is off (by score alone); lower trades score for records unlike those already in the tray",
    "control": "range",
    "default": 1.0,
    "min": 0,
    "max": 1,
    "step": "0.05"
  },
  {
    "name": "question_text",
    "kind": "text",
    "label": "Your question",
    "help": "your own question: when not empty it is scored instead of the chosen question, tabs and line breaks read as spaces, other control characters removed",
    "unit": "Scored like the store's questions, with the same words, stop words and weights. Up to 200 characters.",
    "control": "text",
    "default": "",
    "maxLength": 200,
    "replaces": "question",
    "option": "Your own question"
  }
]);

/** The parts of the page a guided step can show. */
export const GUIDE_PARTS = Object.freeze({"reading": "how the question is read", "table": "the records table", "breakdown": "the score breakdown", "map": "the map of meaning", "tray": "the selected context", "scoreboard": "the scoreboard"});

/** @type {Readonly<Record<string, {code: string, stage: number, label: string, glyph: string, tone: string}>>} */
export const OUTCOME_TABLE = Object.freeze({
  not_written_yet: {"code": "not_written_yet", "stage": 2, "label": "Not written yet", "glyph": "◌", "tone": "muted"},
  other_tenant: {"code": "other_tenant", "stage": 2, "label": "Other tenant", "glyph": "⊗", "tone": "bad"},
  not_true_yet: {"code": "not_true_yet", "stage": 2, "label": "Not true yet", "glyph": "◔", "tone": "muted"},
  superseded: {"code": "superseded", "stage": 2, "label": "Superseded", "glyph": "⇢", "tone": "muted"},
  store_filtered: {"code": "store_filtered", "stage": 2, "label": "Other store", "glyph": "⊘", "tone": "muted"},
  previous_session: {"code": "previous_session", "stage": 2, "label": "Previous session", "glyph": "↶", "tone": "muted"},
  too_old: {"code": "too_old", "stage": 2, "label": "Too old", "glyph": "◷", "tone": "muted"},
  no_shared_terms: {"code": "no_shared_terms", "stage": 3, "label": "No shared terms", "glyph": "∅", "tone": "muted"},
  below_similarity: {"code": "below_similarity", "stage": 3, "label": "Below minimum similarity", "glyph": "≈", "tone": "muted"},
  selected: {"code": "selected", "stage": 4, "label": "Selected", "glyph": "✓", "tone": "good"},
  over_budget: {"code": "over_budget", "stage": 4, "label": "Over budget", "glyph": "✕", "tone": "warn"},
  record_limit: {"code": "record_limit", "stage": 4, "label": "Record limit", "glyph": "#", "tone": "warn"},
  too_similar: {"code": "too_similar", "stage": 4, "label": "Too similar", "glyph": "≋", "tone": "warn"},
});

/** The store format: each object's fields, for the store editor's forms. */
export const STORE_FORMAT = Object.freeze({
  "store": [
    {
      "name": "$schema",
      "kind": "note",
      "label": "Schema",
      "help": "where editors find the JSON Schema; ignored",
      "required": false
    },
    {
      "name": "schema",
      "kind": "int",
      "label": "Format version",
      "help": "the version of the store format, always 1",
      "required": true,
      "min": 1,
      "max": 1
    },
    {
      "name": "title",
      "kind": "text",
      "label": "Title",
      "help": "the store's name, shown in the browser tab and the footer",
      "required": true
    },
    {
      "name": "description",
      "kind": "note",
      "label": "Description",
      "help": "a sentence or two about the store",
      "required": false,
      "default": ""
    },
    {
      "name": "tenants",
      "kind": "list",
      "label": "Tenants",
      "help": "the clients or teams the agent serves",
      "required": true
    },
    {
      "name": "questions",
      "kind": "list",
      "label": "Questions",
      "help": "the questions a learner can ask; the first is asked first",
      "required": true
    },
    {
      "name": "records",
      "kind": "list",
      "label": "Records",
      "help": "the memory records, in store order (the last tie-breaker)",
      "required": true
    },
    {
      "name": "guides",
      "kind": "list",
      "label": "Guides",
      "help": "guided experiments: steps that each apply a policy",
      "required": false
    }
  ],
  "tenant": [
    {
      "name": "id",
      "kind": "text",
      "label": "ID",
      "help": "a unique id that records, questions and policies refer to",
      "required": true
    },
    {
      "name": "label",
      "kind": "text",
      "label": "Name",
      "help": "the name shown on the page",
      "required": true
    }
  ],
  "record": [
    {
      "name": "id",
      "kind": "text",
      "label": "ID",
      "help": "a unique id, short, such as M1",
      "required": true
    },
    {
      "name": "tenant",
      "kind": "choice",
      "label": "Tenant",
      "help": "the tenant the record belongs to",
      "required": true,
      "choicesFrom": "tenants"
    },
    {
      "name": "store",
      "kind": "choice",
      "label": "Memory store",
      "help": "the kind of memory that holds it",
      "required": true,
      "choices": [
        "semantic",
        "episodic",
        "procedural",
        "working"
      ]
    },
    {
      "name": "session",
      "kind": "choice",
      "label": "Session",
      "help": "whether it was written in this session or a previous one",
      "required": true,
      "choices": [
        "current",
        "previous"
      ]
    },
    {
      "name": "age_hours",
      "kind": "hours",
      "label": "Age (hours)",
      "help": "how many hours ago it was written",
      "required": true,
      "min": 0
    },
    {
      "name": "key",
      "kind": "key",
      "label": "Fact key",
      "help": "records of a tenant with the same key state one fact; the newest supersedes",
      "required": true
    },
    {
      "name": "text",
      "kind": "text",
      "label": "Text",
      "help": "what the record says; its words are what the scorers match",
      "required": true
    },
    {
      "name": "importance",
      "kind": "int",
      "label": "Importance",
      "help": "how much it matters, 1 (mundane) to 10 (poignant), as Generative Agents rates a memory; the generative-agents blend weighs it",
      "required": false,
      "default": 5,
      "min": 1,
      "max": 10
    },
    {
      "name": "true_since_hours",
      "kind": "hours",
      "label": "True since (hours)",
      "help": "how many hours ago the fact it states became true in the world; may differ from when it was written",
      "required": false,
      "defaultFrom": "age_hours",
      "min": 0
    }
  ],
  "question": [
    {
      "name": "id",
      "kind": "text",
      "label": "ID",
      "help": "a unique id, used in policies and page links",
      "required": true
    },
    {
      "name": "text",
      "kind": "text",
      "label": "Question",
      "help": "the question as the learner reads it",
      "required": true
    },
    {
      "name": "supporting",
      "kind": "map",
      "label": "Supporting records",
      "help": "for each tenant, the records that truly answer it",
      "required": true
    }
  ],
  "guide": [
    {
      "name": "id",
      "kind": "text",
      "label": "ID",
      "help": "a unique id, used in page links",
      "required": true
    },
    {
      "name": "title",
      "kind": "text",
      "label": "Title",
      "help": "the guide's name",
      "required": true
    },
    {
      "name": "intro",
      "kind": "note",
      "label": "Introduction",
      "help": "what the guide sets out to show",
      "required": false
    },
    {
      "name": "closing",
      "kind": "note",
      "label": "Closing",
      "help": "what the learner should take away, shown at the end",
      "required": false
    },
    {
      "name": "steps",
      "kind": "list",
      "label": "Steps",
      "help": "the steps, in order",
      "required": true
    }
  ],
  "step": [
    {
      "name": "title",
      "kind": "text",
      "label": "Title",
      "help": "what the step does",
      "required": true
    },
    {
      "name": "policy",
      "kind": "object",
      "label": "Settings",
      "help": "the policy fields the step sets; the rest take their defaults",
      "required": true
    },
    {
      "name": "look_for",
      "kind": "text",
      "label": "Look for",
      "help": "what the learner should see; every record and number it names is checked",
      "required": true
    },
    {
      "name": "shows",
      "kind": "object",
      "label": "Shows",
      "help": "the stage, record and part of the page the step brings into view",
      "required": false
    }
  ],
  "shows": [
    {
      "name": "stage",
      "kind": "int",
      "label": "Stage",
      "help": "the stage the step opens at",
      "required": true,
      "min": 1,
      "max": 4
    },
    {
      "name": "record",
      "kind": "choice",
      "label": "Record",
      "help": "the record the step speaks of",
      "required": true,
      "choicesFrom": "records"
    },
    {
      "name": "part",
      "kind": "choice",
      "label": "Part",
      "help": "the part of the page it shows",
      "required": true,
      "choices": [
        "reading",
        "table",
        "breakdown",
        "map",
        "tray",
        "scoreboard"
      ]
    }
  ]
});

/** The policy fields the scoreboard's sweep can vary (SWEPT). */
/** @type {readonly (keyof Policy)[]} */
export const SWEPT = Object.freeze(["recency_weight", "mmr_lambda"]);
