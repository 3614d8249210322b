/* Reading a pattern file for one rank, and one exchange of its messages. */
#include "rank_messages.h"

#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, parsed once. Under smpirun -no-privatize the ranks share this process's globals,
 * so the first rank parses and the others reuse it (at 1024 ranks, parsing per rank took 6 of a
 * replay's 17 s). With privatisation each rank parses its own copy: slower, the same result. */
struct Pattern {
  char path[4096];
  int ranks;
  long long lines;
  int* from;
  int* to;
  long long* bytes;
};
static struct Pattern parsed;

/* Prints the problem once per process: every rank reads the same file and would repeat it. */
static int fail(const char* path, long long line, const char* what) {
  static int reported = 0;
  if (!reported) fprintf(stderr, "%s:%lld: %s\n", path, line, what);
  reported = 1;
  return 1;
}

static int parse(const char* path) {
  if (parsed.from && strcmp(parsed.path, path) == 0) return 0;
  if (strlen(path) >= sizeof parsed.path) return fail(path, 0, "path too long");
  FILE* file = fopen(path, "r");
  if (!file) return fail(path, 0, "cannot open the pattern file");
  struct Pattern p = {{0}, 0, 0, NULL, NULL, NULL};
  if (fscanf(file, "%d %lld", &p.ranks, &p.lines) != 2 || p.ranks <= 0 || p.lines < 0) {
    fclose(file);
    return fail(path, 1, "expected a header line \"<ranks> <messages>\"");
  }
  p.from = malloc(sizeof(int) * (size_t)(p.lines + 1));
  p.to = malloc(sizeof(int) * (size_t)(p.lines + 1));
  p.bytes = malloc(sizeof(long long) * (size_t)(p.lines + 1));
  int ok = p.from && p.to && p.bytes;
  long long k = 0;
  for (; ok && k < p.lines; ++k) {
    ok = fscanf(file, "%d %d %lld", &p.from[k], &p.to[k], &p.bytes[k]) == 3 && p.from[k] >= 0 &&
         p.to[k] >= 0 && p.from[k] < p.ranks && p.to[k] < p.ranks && p.from[k] != p.to[k] &&
         p.bytes[k] > 0;
  }
  fclose(file);
  if (!ok) {
    free(p.from);
    free(p.to);
    free(p.bytes);
    return fail(path, k + 1,
                "expected \"<sender> <receiver> <bytes>\": ranks below the header's count, "
                "distinct, bytes > 0");
  }
  free(parsed.from);
  free(parsed.to);
  free(parsed.bytes);
  parsed = p;
  strcpy(parsed.path, path);
  return 0;
}

static int read_rank_messages(const char* path, int rank, struct RankMessages* out) {
  if (parse(path) != 0) return 1;
  struct RankMessages m = {0};
  m.ranks = parsed.ranks;
  for (long long k = 0; k < parsed.lines; ++k) {
    m.sends += parsed.from[k] == rank;
    m.receives += parsed.to[k] == rank;
  }
  m.send_to = malloc(sizeof(int) * (size_t)(m.sends + 1));
  m.send_bytes = malloc(sizeof(long long) * (size_t)(m.sends + 1));
  m.receive_from = malloc(sizeof(int) * (size_t)(m.receives + 1));
  m.receive_bytes = malloc(sizeof(long long) * (size_t)(m.receives + 1));
  if (!m.send_to || !m.send_bytes || !m.receive_from || !m.receive_bytes) {
    free_rank_messages(&m);
    return fail(path, 0, "out of memory");
  }
  m.sends = m.receives = 0;
  for (long long k = 0; k < parsed.lines; ++k) {
    if (parsed.from[k] == rank) {
      m.send_to[m.sends] = parsed.to[k];
      m.send_bytes[m.sends++] = parsed.bytes[k];
    }
    if (parsed.to[k] == rank) {
      m.receive_from[m.receives] = parsed.from[k];
      m.receive_bytes[m.receives++] = parsed.bytes[k];
    }
    if ((parsed.from[k] == rank || parsed.to[k] == rank) && parsed.bytes[k] > m.largest)
      m.largest = parsed.bytes[k];
  }
  *out = m;
  return 0;
}

struct RankMessages rank_messages_or_abort(const char* path) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct RankMessages messages;
  if (read_rank_messages(path, rank, &messages) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  if (messages.ranks != size) {
    char what[96];
    snprintf(what, sizeof what, "the pattern has %d ranks, the job %d", messages.ranks, size);
    fail(path, 1, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  messages.buffer = SMPI_SHARED_MALLOC((size_t)messages.largest + 8);
  return messages;
}

void free_rank_messages(struct RankMessages* messages) {
  if (messages->buffer) SMPI_SHARED_FREE(messages->buffer);
  messages->buffer = NULL;
  free(messages->send_to);
  free(messages->send_bytes);
  free(messages->receive_from);
  free(messages->receive_bytes);
  messages->send_to = messages->receive_from = NULL;
  messages->send_bytes = messages->receive_bytes = NULL;
}

/* A message of 2^31 bytes or more would not fit an int count of MPI_BYTE: it goes in MPI_DOUBLE
 * units (the transfer time is what counts). */
static int count_of(long long bytes, MPI_Datatype* type) {
  const int small = bytes < (1LL << 31);
  *type = small ? MPI_BYTE : MPI_DOUBLE;
  return (int)(small ? bytes : bytes / 8);
}

void exchange_once(const struct RankMessages* messages) {
  const int total = messages->sends + messages->receives;
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)(total + 1));
  if (!requests) MPI_Abort(MPI_COMM_WORLD, 1);
  int r = 0;
  MPI_Datatype type;
  for (int k = 0; k < messages->receives; ++k) {
    const int count = count_of(messages->receive_bytes[k], &type);
    MPI_Irecv(messages->buffer, count, type, messages->receive_from[k], 0, MPI_COMM_WORLD,
              &requests[r++]);
  }
  for (int k = 0; k < messages->sends; ++k) {
    const int count = count_of(messages->send_bytes[k], &type);
    MPI_Isend(messages->buffer, count, type, messages->send_to[k], 0, MPI_COMM_WORLD,
              &requests[r++]);
  }
  MPI_Waitall(r, requests, MPI_STATUSES_IGNORE);
  free(requests);
}
