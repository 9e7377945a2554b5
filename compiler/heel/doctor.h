/* SPDX-License-Identifier: MIT
 * `heel doctor [--json]`: what this machine gives this user. The walls
 * come from `heel-exec check` without a policy (the launcher probes
 * them, as a launch would meet them); each stock policy `heel run`
 * offers is compiled here and checked by `heel-exec check POLICY`; the
 * result is printed as stable text or as JSON (heel(1), DOCTOR). */
#ifndef HEEL_FRONT_DOCTOR_H
#define HEEL_FRONT_DOCTOR_H

/* argv[0] is "doctor"; launcher is the heel-exec to ask. Exit status:
 * 0 when every wall is there and every stock policy runs fully, 1 when
 * not, 125 when heel cannot tell. */
int doctor_main(int argc, char **argv, const char *launcher);

#endif
