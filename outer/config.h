/* config.h: the settings of one cordon invocation, as parsed from flags
 * (cli.c).  Strings point into argv or are owned by the config (see
 * config_free); nothing here has touched the filesystem yet. */
#ifndef CORDON_CONFIG_H
#define CORDON_CONFIG_H

#include <stddef.h>

struct prefix_guard;

enum cordon_mode { MODE_RUN, MODE_EXPLAIN, MODE_DOCTOR, MODE_RECLAIM, MODE_VERSION, MODE_HELP };
enum tmp_mode { TMP_PRIVATE, TMP_HOST };
enum net_mode { NET_NONE, NET_PROXY, NET_FULL };
enum pid_mode { PID_AUTO, PID_ISOLATE, PID_INHERIT }; /* auto: plan/procmode.h */
enum protect_missing { PROTECT_MISSING_WATCH, PROTECT_MISSING_MOUNT };
enum cache_mode { CACHE_PRIVATE, CACHE_NONE };
/* --git: a protected .git read-only as a whole (the default), or split so
 * that git's own data is writable (plan/gitdir.h). */
enum git_mode { GIT_READ_ONLY, GIT_COMMIT };

struct env_op {
	const char *key;
	const char *value; /* NULL: unset */
};

struct strlist {
	const char **v;
	size_t n;
	size_t nfile;              /* v[0..nfile) came from the --policy file */
	size_t cap;                /* common/grow.h */
};

struct config {
	enum cordon_mode mode;
	struct strlist write, read_only, deny_read, protect;
	int default_protect;
	struct strlist unprotect;  /* default names left unprotected (--unprotect) */
	enum tmp_mode tmp;
	int full_write;
	const char *cwd;           /* NULL: the current directory */
	enum net_mode net;
	int allow_unix_sockets;
	struct strlist allow_unix_socket; /* --allow-unix-socket PATH: host sockets by path */
	enum pid_mode pid;
	struct env_op *env;
	size_t nenv, capenv;
	int clear_env;
	int verbose;
	int require_landlock;
	int allow_no_landlock;     /* a root caller accepts running without Landlock */
	unsigned timeout;          /* seconds, 0: none */
	enum protect_missing protect_missing;
	enum cache_mode cache;
	enum git_mode git;
	unsigned kill_after;       /* seconds between a forwarded SIGTERM/INT/HUP and SIGKILL */
	/* --net proxy */
	struct strlist allow_domain, deny_domain;
	const char *proxy_upstream;    /* "tcp:HOST:PORT" or "unix:PATH", NULL: built-in filter;
					  never with credentials (cli_upstream_split) */
	const char *proxy_upstream_auth; /* "USER:PASS" decoded, NULL: none; only for the bridge */
	const char *attribution_token; /* only with proxy_upstream */
	const char *net_log;           /* NULL: no log file */
	/* agent surface */
	const char *policy;        /* --policy FILE, NULL: none */
	int policy_srt;            /* the file is in srt's settings format */
	const char *policy_base;   /* the directory the file's relative paths resolved
				      against: its own (cordon's format) or the run's
				      working directory (srt's) */
	/* cordon-prefix and cordon-sh (prefix.h): the policy file that must
	 * not be writable inside the sandbox it makes, checked against the
	 * mount plan before the command starts; NULL: none.  Not a flag. */
	const struct prefix_guard *policy_guard;
	struct strlist write_from; /* "FILE:LINE" of write.v[i], i < write.nfile */
	size_t nenv_file;          /* env[0..nenv_file) came from the policy file */
	struct strlist warnings;   /* srt keys cordon does not honour as srt would */
	/* Where each setting came from, for explain's "why": the long names
	 * of the flags given, and of the flags the policy's keys stood for
	 * with those keys (dotted, as in the file). */
	struct strlist flags_given, policy_flags, policy_keys;
	char **owned;              /* strings the policy file supplied (config_free) */
	size_t nowned, capowned;
	const char *report;        /* --report FILE, NULL: none */
	int json;                  /* explain --json */
	struct strlist explain_paths; /* explain --path: only the verdicts on these */
	int reclaim_caches;        /* reclaim --caches */
	int die_with_parent;
	/* limits; 0: none */
	unsigned long long tmp_size;     /* bytes of the private /tmp; 0: the default */
	unsigned long long limit_memory; /* bytes */
	unsigned long limit_pids;
	unsigned limit_cpu;              /* seconds */
	char *const *cmd;          /* NULL-terminated, points into argv */
};

/* The protected names of --no-default-protect's defaults, directly inside
 * each writable root: repository and agent metadata (missing ones are
 * watched, or mount points with --protect-missing mount), and dotfiles that
 * shells, git, editors and agents read from a project (missing ones are
 * always watched: an empty directory named .bashrc would only break them). */
extern const char *const config_default_protect[];
extern const char *const config_default_dotfiles[];

/* 1 if name is one of the two lists above: also the only names a registry
 * record may ask cordon to remove (the dotfiles get placeholders when a
 * run cannot watch: protect_watch.h), so a forged record can name nothing
 * else, and even then only an empty directory with its inode. */
int config_is_default_name(const char *name);
/* 1 if c protects name as a default name: default_protect, and not
 * --unprotect NAME. */
int config_default_protects(const struct config *c, const char *name);

void config_free(struct config *c);

#endif
