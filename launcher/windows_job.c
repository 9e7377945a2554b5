/* SPDX-License-Identifier: MIT
 * The job object every sandboxed process lives in. heel-exec.exe keeps
 * the only handle: when it exits, however it exits, Windows closes the
 * handle and KILL_ON_JOB_CLOSE ends everything the command started. The
 * job is never given BREAKAWAY_OK, so no process in it can leave it. */
#ifdef _WIN32
#include "winexec.h"

#include <errno.h>
#include <string.h>

#include "errmsg.h"

HANDLE
winx_job_create(const struct win_manifest *m, char *err, size_t errlen)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	char why[300];
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job) {
		rt_error(err, errlen, -EIO, "cannot create a job object: %s",
			 winx_strerror(GetLastError(), why, sizeof(why)));
		return NULL;
	}
	memset(&lim, 0, sizeof(lim));
	/* DIE_ON_UNHANDLED_EXCEPTION: a crash ends the process instead of
	 * waiting on an error-reporting dialog nobody will see. */
	lim.BasicLimitInformation.LimitFlags =
	    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (m) {
		if (m->job_memory_bytes) {
			lim.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_JOB_MEMORY;
			lim.JobMemoryLimit = (SIZE_T)m->job_memory_bytes;
		}
		if (m->process_memory_bytes) {
			lim.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PROCESS_MEMORY;
			lim.ProcessMemoryLimit = (SIZE_T)m->process_memory_bytes;
		}
		if (m->active_processes) {
			lim.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS;
			lim.BasicLimitInformation.ActiveProcessLimit = m->active_processes;
		}
		if (m->priority_class != WIN_PRIO_NORMAL) {
			lim.BasicLimitInformation.LimitFlags |= JOB_OBJECT_LIMIT_PRIORITY_CLASS;
			lim.BasicLimitInformation.PriorityClass =
			    m->priority_class == WIN_PRIO_IDLE ? IDLE_PRIORITY_CLASS
							       : BELOW_NORMAL_PRIORITY_CLASS;
		}
	}
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim))) {
		rt_error(err, errlen, -EIO, "cannot set the job's limits: %s",
			 winx_strerror(GetLastError(), why, sizeof(why)));
		CloseHandle(job);
		return NULL;
	}
	if (m && m->cpu_rate_percent) {
		JOBOBJECT_CPU_RATE_CONTROL_INFORMATION cpu;

		memset(&cpu, 0, sizeof(cpu));
		/* In 1/100 of a percent of all processors; a hard cap, not a
		 * weight (Windows 8 and later). */
		cpu.ControlFlags = JOB_OBJECT_CPU_RATE_CONTROL_ENABLE | JOB_OBJECT_CPU_RATE_CONTROL_HARD_CAP;
		cpu.CpuRate = m->cpu_rate_percent * 100;
		if (!SetInformationJobObject(job, JobObjectCpuRateControlInformation, &cpu, sizeof(cpu))) {
			rt_error(err, errlen, -EIO, "cannot set the job's CPU rate (%u%%): %s",
				 (unsigned)m->cpu_rate_percent, winx_strerror(GetLastError(), why, sizeof(why)));
			CloseHandle(job);
			return NULL;
		}
	}
	return job;
}
#endif
