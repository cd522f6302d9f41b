// The compute service's contract with the entry editor (Django). The Python code of both
// sides is generated from this file by scripts/thrift-gen.sh (thrift 0.17, `--gen py:slots`)
// into compute_contract/computeidl, once, in this package.
//
// Every call is a read: a client may retry any of them on a connection error.

namespace py computeidl

// A sentence id that is not in the model (corpus_sentence.id, 1..N in corpus order).
exception UnknownSentence {
  1: i32 sentence_id,
  2: string message,
}

// A word that is not in the model's vocabulary.
exception UnknownWord {
  1: string word,
  2: string message,
}

// k outside 1..max_k, or a batch larger than max_batch.
exception BadRequest {
  1: string message,
  2: i32 max_k,
  3: i32 max_batch,
}

struct Neighbor {
  1: i32 sentence_id,
  2: string text,
  // Cosine similarity of the two sentence vectors, in [-1, 1].
  3: double score,
}

struct SentenceNeighbors {
  1: i32 sentence_id,
  2: list<Neighbor> neighbors,
}

struct SimilarWord {
  1: string word,
  2: double score,
}

struct ModelInfo {
  // SHA-256 of the corpus the model was built from (the artifact's key).
  1: string corpus_checksum,
  2: i32 sentences,
  3: i32 words,
  4: i32 dimensions,
  5: i32 max_k,
  6: i32 max_batch,
}

service Compute {
  // "pong": the server is up and its model is loaded.
  string ping(),

  ModelInfo info(),

  // The k sentences most similar to sentence_id (itself excluded), best first.
  list<Neighbor> neighbors(1: i32 sentence_id, 2: i32 k)
    throws (1: UnknownSentence unknown, 2: BadRequest bad_request),

  // neighbors() for many sentences in one call and one matrix product, in request order.
  list<SentenceNeighbors> neighbors_batch(1: list<i32> sentence_ids, 2: i32 k)
    throws (1: UnknownSentence unknown, 2: BadRequest bad_request),

  // The k words nearest to word in the word-vector space, best first.
  list<SimilarWord> similar_words(1: string word, 2: i32 k)
    throws (1: UnknownWord unknown, 2: BadRequest bad_request),
}
