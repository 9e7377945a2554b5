/* SPDX-License-Identifier: MIT
 * heel's release, one number for every program it ships: heelc records
 * it in the artifact, heel-exec and heelc print it with --version. */
#ifndef HEEL_RUNTIME_HEEL_VERSION_H
#define HEEL_RUNTIME_HEEL_VERSION_H

#define HEEL_VERSION "0.1.0"

#endif
