/* SPDX-License-Identifier: MIT
 * Versions heelc reports and records in the artifact's metadata. */
#ifndef HEEL_COMPILER_VERSION_H
#define HEEL_COMPILER_VERSION_H

#define HEEL_VERSION "0.1.0"
#define HEEL_LANGUAGE_VERSION 1

#endif
