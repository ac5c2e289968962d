/* test_procmode.c: the container detection (plan/procmode.h): which mount
 * tables are worth a probe, what each probe outcome means, and the mode a
 * run gets from it. */
#include <criterion/criterion.h>

#include <errno.h>

#include "plan/procmode.h"

static const char host[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
	"24 23 0:22 / /proc/sys/fs/binfmt_misc rw,relatime shared:13 - autofs systemd-1 rw\n"
	"25 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw\n"
	"26 22 0:30 / /process rw - tmpfs tmpfs rw\n";

Test(procmode, a_plain_host_is_not_probed)
{
	cr_assert_eq(procmode_suspect(host), 0, "binfmt_misc alone, and /process, are not masks");
	cr_assert_eq(procmode_suspect(""), 0);
	cr_assert_eq(procmode_suspect("garbage without fields\n"), 0);
}

Test(procmode, masks_or_a_read_only_proc_sys_are_probed)
{
	static const char masked[] =
		"23 22 0:21 / /proc rw,nosuid - proc proc rw\n"
		"40 23 0:5 /null /proc/keys rw,nosuid - devtmpfs udev rw\n";
	static const char rosys[] =
		"23 22 0:21 / /proc rw,nosuid - proc proc rw\n"
		"41 23 0:21 /sys /proc/sys ro,nosuid - proc proc rw";  /* no final newline */
	cr_assert_eq(procmode_suspect(masked), 1);
	cr_assert_eq(procmode_suspect(rosys), 1);
}

Test(procmode, each_probe_outcome)
{
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_DONE, 0), PROCMODE_FRESH_OK);
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_MOUNT, EPERM), PROCMODE_FRESH_REFUSED);
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_MOUNT, EACCES), PROCMODE_FRESH_REFUSED);
	/* Anything else is no evidence of a container: bwrap then runs as
	 * asked and says what failed. */
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_MOUNT, ENOMEM), PROCMODE_UNKNOWN);
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_UNSHARE, EPERM), PROCMODE_UNKNOWN,
		     "no user namespaces is not a proc refusal");
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_UNSHARE, ENOSPC), PROCMODE_UNKNOWN);
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_FORK, EAGAIN), PROCMODE_UNKNOWN);
	cr_assert_eq(procmode_verdict(PROCMODE_STAGE_PRIVATE, EPERM), PROCMODE_UNKNOWN);
	cr_assert_eq(procmode_verdict(0, 0), PROCMODE_UNKNOWN, "the probe said nothing");
}

Test(procmode, the_mode_a_run_gets)
{
	int inherit = -1;
	procmode_pick(PID_AUTO, PROCMODE_FRESH_REFUSED, &inherit);
	cr_assert_eq(inherit, 1);
	for (int v = PROCMODE_NOT_PROBED; v <= PROCMODE_UNKNOWN; v++) {
		if (v == PROCMODE_FRESH_REFUSED)
			continue;
		procmode_pick(PID_AUTO, (enum procmode_verdict)v, &inherit);
		cr_assert_eq(inherit, 0, "auto stays isolated on verdict %d", v);
	}
	procmode_pick(PID_ISOLATE, PROCMODE_FRESH_REFUSED, &inherit);
	cr_assert_eq(inherit, 0, "an explicit isolate is never relaxed");
	procmode_pick(PID_INHERIT, PROCMODE_FRESH_OK, &inherit);
	cr_assert_eq(inherit, 1);
}
