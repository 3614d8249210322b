/* The messages one rank of a pattern file sends and receives, for the SMPI programs.
 *
 * A pattern file (treematch-bench writes it) is a header line "<ranks> <messages>" then one line
 * "<sender> <receiver> <bytes>" per message. Every rank of the simulated job reads the whole file
 * and keeps its own lines: a new pattern needs no code, only a file. */
#pragma once

#include <stddef.h>

struct RankMessages {
  int ranks;    /* of the pattern: must equal the job's size */
  int sends;    /* messages this rank sends */
  int receives; /* messages it receives */
  int* send_to; /* [sends] */
  long long* send_bytes;
  int* receive_from; /* [receives] */
  long long* receive_bytes;
  long long largest; /* bytes of its largest message, either way */
  char* buffer;      /* SMPI_SHARED_MALLOC of `largest`: SMPI times transfers, not contents */
};

/* This rank's messages of the pattern file `path`, checked against the job's size, with their
 * buffer. On a problem the rank that sees it prints one line naming the file and aborts the job. */
struct RankMessages rank_messages_or_abort(const char* path);
void free_rank_messages(struct RankMessages* messages);

/* Posts every receive and send of `messages` at once and waits for all. */
void exchange_once(const struct RankMessages* messages);
