/* SPDX-License-Identifier: MIT
 * Versions heelc reports and records in the artifact's metadata. */
#ifndef HEEL_COMPILER_VERSION_H
#define HEEL_COMPILER_VERSION_H

#include "heel_version.h" /* HEEL_VERSION, shared with heel-exec */
#define HEEL_LANGUAGE_VERSION 1

#endif
