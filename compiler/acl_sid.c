/* SPDX-License-Identifier: MIT
 * AppContainer and capability SIDs without Windows: both are SHA-256
 * over the UTF-16LE of the name, folded to one case, cut into
 * little-endian 32-bit words (the rule Windows' userenv and kernelbase
 * apply; tests/unit/test_acl_sid.c checks it against SIDs Windows
 * itself published, such as Microsoft Edge's). */
#include "acl_sid.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

#include "le.h"

/* winnt.h SECURITY_CAPABILITY_* order: the index + 1 is the RID. */
static const char *const well_known[] = {
    "internetClient",	    "internetClientServer",	"privateNetworkClientServer",
    "picturesLibrary",	    "videosLibrary",		"musicLibrary",
    "documentsLibrary",	    "enterpriseAuthentication", "sharedUserCertificates",
    "removableStorage",	    "appointments",		"contacts",
};

void
acl_container_name(const uint8_t digest[32], char out[ACL_NAME_SIZE])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out + snprintf(out, ACL_NAME_SIZE, "heel.p.");

	for (int i = 0; i < 8; i++) {
		*p++ = hex[digest[i] >> 4];
		*p++ = hex[digest[i] & 15];
	}
	*p = '\0';
}

/* SHA-256 over the UTF-16LE of `name` with ASCII letters folded to
 * upper (fold > 0) or lower case (fold < 0). */
static int
hash_folded(const char *name, int fold, uint8_t digest[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx h;

	sha256_init(&h);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		uint8_t unit[2] = {*p, 0};

		if (*p >= 0x80)
			return -EINVAL;
		if (fold > 0 && *p >= 'a' && *p <= 'z')
			unit[0] = (uint8_t)(*p - 'a' + 'A');
		if (fold < 0 && *p >= 'A' && *p <= 'Z')
			unit[0] = (uint8_t)(*p - 'A' + 'a');
		sha256_update(&h, 2, unit);
	}
	sha256_digest(&h, SHA256_DIGEST_SIZE, digest);
	return 0;
}

static int
format_sid(const char *prefix, const uint8_t *words, int nwords, char *out, size_t outlen)
{
	size_t n = (size_t)snprintf(out, outlen, "%s", prefix);

	for (int i = 0; i < nwords && n < outlen; i++)
		n += (size_t)snprintf(out + n, outlen - n, "-%lu",
				      (unsigned long)le_get32(words + 4 * i));
	return n < outlen ? 0 : -ENOSPC;
}

int
acl_appcontainer_sid(const char *name, char *out, size_t outlen)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	int rc = hash_folded(name, -1, d);

	return rc ? rc : format_sid("S-1-15-2", d, 7, out, outlen);
}

unsigned
acl_capability_well_known(const char *name)
{
	for (unsigned i = 0; i < sizeof(well_known) / sizeof(well_known[0]); i++)
		if (strcmp(name, well_known[i]) == 0)
			return i + 1;
	return 0;
}

int
acl_capability_sid(const char *name, char *out, size_t outlen)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	unsigned rid = acl_capability_well_known(name);
	int rc;

	if (rid) {
		rc = snprintf(out, outlen, "S-1-15-3-%u", rid);
		return rc >= 0 && (size_t)rc < outlen ? 0 : -ENOSPC;
	}
	rc = hash_folded(name, 1, d);
	return rc ? rc : format_sid("S-1-15-3-1024", d, 8, out, outlen);
}
