/* config.h: the settings of one cordon invocation, as parsed from flags
 * (cli.c).  Strings point into argv or are owned by the config (see
 * config_free); nothing here has touched the filesystem yet. */
#ifndef CORDON_CONFIG_H
#define CORDON_CONFIG_H

#include <stddef.h>

enum cordon_mode { MODE_RUN, MODE_EXPLAIN, MODE_DOCTOR, MODE_RECLAIM, MODE_VERSION, MODE_HELP };
enum tmp_mode { TMP_PRIVATE, TMP_HOST };
enum net_mode { NET_NONE, NET_PROXY, NET_FULL };
enum pid_mode { PID_ISOLATE, PID_INHERIT };

struct env_op {
	const char *key;
	const char *value; /* NULL: unset */
};

struct strlist {
	const char **v;
	size_t n;
};

struct config {
	enum cordon_mode mode;
	struct strlist write, read_only, deny_read, protect;
	int default_protect;
	enum tmp_mode tmp;
	int full_write;
	const char *cwd;           /* NULL: the current directory */
	enum net_mode net;
	int allow_unix_sockets;
	enum pid_mode pid;
	struct env_op *env;
	size_t nenv;
	int clear_env;
	int verbose;
	int require_landlock;
	unsigned timeout;          /* seconds, 0: none */
	char *const *cmd;          /* NULL-terminated, points into argv */
};

extern const char *const config_default_protect[];

void config_free(struct config *c);

#endif
