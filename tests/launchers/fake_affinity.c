// LD_PRELOAD shim: CPU bindings on a fake host's PUs, which this machine may lack, kept per process
// in files so that a test can read what a launcher bound each rank to.
//
// With FAKE_AFFINITY_DIR set, sched_{set,get}affinity and pthread_{set,get}affinity_np never reach
// the kernel: a binding is the request intersected with FAKE_AFFINITY_CPUS (the host's PUs, a list
// such as "0-7,16"; empty intersection: EINVAL, as the kernel refuses CPUs it lacks) and is stored
// in FAKE_AFFINITY_DIR/<tid> as "<start time> <list>". A thread without a file has its process's
// binding, a process without one its parent's (so exec keeps a binding and fork inherits it; read
// when asked, so a parent that rebinds later changes an unbound child too), and a process whose
// ancestors have none either runs on all of FAKE_AFFINITY_CPUS. The start time (from /proc) tells
// a file from one left by an earlier process with the same id.
// Without FAKE_AFFINITY_DIR every call goes to libc.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum { kMaxCpus = 4096, kBytes = kMaxCpus / 8 };

typedef struct {
  unsigned char bits[kBytes];
} Cpus;

static int cpus_empty(const Cpus* cpus) {
  for (int i = 0; i < kBytes; ++i) {
    if (cpus->bits[i] != 0) return 0;
  }
  return 1;
}

// "0-3,8" -> bits; 0 on success, -1 on a malformed list or a CPU beyond kMaxCpus.
static int parse_list(const char* text, Cpus* cpus) {
  memset(cpus, 0, sizeof *cpus);
  const char* p = text;
  while (*p != '\0' && *p != '\n') {
    char* end = NULL;
    long first = strtol(p, &end, 10);
    if (end == p) return -1;
    long last = first;
    p = end;
    if (*p == '-') {
      last = strtol(p + 1, &end, 10);
      if (end == p + 1) return -1;
      p = end;
    }
    if (first < 0 || last < first || last >= kMaxCpus) return -1;
    for (long cpu = first; cpu <= last; ++cpu)
      cpus->bits[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
    if (*p == ',') ++p;
  }
  return 0;
}

static int has(const Cpus* cpus, int cpu) {
  return (cpus->bits[cpu / 8] >> (cpu % 8)) & 1;
}

static void format_list(const Cpus* cpus, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int cpu = 0; cpu < kMaxCpus; ++cpu) {
    if (!has(cpus, cpu)) continue;
    int last = cpu;
    while (last + 1 < kMaxCpus && has(cpus, last + 1)) ++last;
    int n = last > cpu ? snprintf(out + used, size - used, "%s%d-%d", used ? "," : "", cpu, last)
                       : snprintf(out + used, size - used, "%s%d", used ? "," : "", cpu);
    if (n < 0 || (size_t)n >= size - used) return;
    used += (size_t)n;
    cpu = last;
  }
}

// Field `name` ("PPid:", "Tgid:") of /proc/<id>/status, or -1.
static long status_field(pid_t id, const char* name) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/status", (int)id);
  FILE* file = fopen(path, "re");
  if (file == NULL) return -1;
  char line[256];
  long value = -1;
  size_t length = strlen(name);
  while (fgets(line, sizeof line, file) != NULL) {
    if (strncmp(line, name, length) == 0) {
      value = strtol(line + length, NULL, 10);
      break;
    }
  }
  fclose(file);
  return value;
}

// Field 22 of /proc/<id>/stat (start time in clock ticks), or 0.
static unsigned long long start_time(pid_t id) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)id);
  FILE* file = fopen(path, "re");
  if (file == NULL) return 0;
  char line[1024];
  unsigned long long value = 0;
  if (fgets(line, sizeof line, file) != NULL) {
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    char* p = strrchr(line, ')');
    for (int field = 2; p != NULL && field < 22; ++field) p = strchr(p + 1, ' ');
    if (p != NULL) value = strtoull(p + 1, NULL, 10);
  }
  fclose(file);
  return value;
}

static int usable_cpus(Cpus* cpus) {
  const char* text = getenv("FAKE_AFFINITY_CPUS");
  return text != NULL && parse_list(text, cpus) == 0 && !cpus_empty(cpus) ? 0 : -1;
}

// The binding stored for `id` itself: 0 when found (and not stale), -1 otherwise.
static int stored(const char* dir, pid_t id, Cpus* cpus) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%d", dir, (int)id);
  FILE* file = fopen(path, "re");
  if (file == NULL) return -1;
  unsigned long long when = 0;
  char list[16384];
  int ok = fscanf(file, "%llu %16383s", &when, list) == 2 && when == start_time(id) &&
           parse_list(list, cpus) == 0;
  fclose(file);
  return ok ? 0 : -1;
}

// The binding of thread or process `id`, as described at the top of this file.
static int lookup(const char* dir, pid_t id, Cpus* cpus) {
  for (int depth = 0; id > 1 && depth < 256; ++depth) {
    if (stored(dir, id, cpus) == 0) return 0;
    long group = status_field(id, "Tgid:");
    id = (pid_t)(group > 0 && group != id ? group : status_field(id, "PPid:"));
  }
  return usable_cpus(cpus);
}

static int save(const char* dir, pid_t id, const Cpus* cpus) {
  char path[4096], temporary[4200], list[16384];
  snprintf(path, sizeof path, "%s/%d", dir, (int)id);
  snprintf(temporary, sizeof temporary, "%s.%d.tmp", path, (int)syscall(SYS_gettid));
  format_list(cpus, list, sizeof list);
  FILE* file = fopen(temporary, "we");
  if (file == NULL) return -1;
  int ok = fprintf(file, "%llu %s\n", start_time(id), list) > 0;
  ok = fclose(file) == 0 && ok;
  return ok && rename(temporary, path) == 0 ? 0 : -1;
}

static int fake_set(pid_t id, size_t size, const cpu_set_t* set) {
  const char* dir = getenv("FAKE_AFFINITY_DIR");
  Cpus usable, wanted;
  if (usable_cpus(&usable) != 0) return ENOSYS;
  memset(&wanted, 0, sizeof wanted);
  size_t bytes = size < kBytes ? size : kBytes;
  memcpy(wanted.bits, set, bytes);
  for (int i = 0; i < kBytes; ++i) wanted.bits[i] &= usable.bits[i];
  if (cpus_empty(&wanted)) return EINVAL;
  if (id == 0) id = (pid_t)syscall(SYS_gettid);
  if (kill(id, 0) != 0 && errno == ESRCH) return ESRCH;
  return save(dir, id, &wanted) == 0 ? 0 : EIO;
}

static int fake_get(pid_t id, size_t size, cpu_set_t* set) {
  const char* dir = getenv("FAKE_AFFINITY_DIR");
  if (id == 0) id = (pid_t)syscall(SYS_gettid);
  Cpus cpus;
  if (lookup(dir, id, &cpus) != 0) return ENOSYS;
  memset(set, 0, size);
  memcpy(set, cpus.bits, size < kBytes ? size : kBytes);
  return 0;
}

static int faked(void) {
  return getenv("FAKE_AFFINITY_DIR") != NULL;
}

static int as_errno(int error) {
  if (error == 0) return 0;
  errno = error;
  return -1;
}

// libc's definition of `name` into *function: POSIX lets dlsym's object pointer become a function
// pointer, ISO C does not, hence the copy.
static void next(const char* name, void* function, size_t size) {
  void* symbol = dlsym(RTLD_NEXT, name);
  memcpy(function, &symbol, size);
}

typedef int (*SetAffinity)(pid_t, size_t, const cpu_set_t*);
typedef int (*GetAffinity)(pid_t, size_t, cpu_set_t*);
typedef int (*SetThreadAffinity)(pthread_t, size_t, const cpu_set_t*);
typedef int (*GetThreadAffinity)(pthread_t, size_t, cpu_set_t*);

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* set) {
  if (faked()) return as_errno(fake_set(pid, size, set));
  SetAffinity real;
  next("sched_setaffinity", &real, sizeof real);
  return real(pid, size, set);
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* set) {
  if (faked()) return as_errno(fake_get(pid, size, set));
  GetAffinity real;
  next("sched_getaffinity", &real, sizeof real);
  return real(pid, size, set);
}

// Only the calling thread: glibc 2.36 has no public way from a pthread_t to its kernel id.
int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t* set) {
  if (faked()) return pthread_equal(thread, pthread_self()) ? fake_set(0, size, set) : ENOSYS;
  SetThreadAffinity real;
  next("pthread_setaffinity_np", &real, sizeof real);
  return real(thread, size, set);
}

int pthread_getaffinity_np(pthread_t thread, size_t size, cpu_set_t* set) {
  if (faked()) return pthread_equal(thread, pthread_self()) ? fake_get(0, size, set) : ENOSYS;
  GetThreadAffinity real;
  next("pthread_getaffinity_np", &real, sizeof real);
  return real(thread, size, set);
}
