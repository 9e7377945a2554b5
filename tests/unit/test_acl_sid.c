/* SPDX-License-Identifier: MIT
 * The Windows backend's SIDs against values Windows itself produced:
 * an AppContainer SID Microsoft publishes (Edge's) and capability SIDs
 * found in Windows' and Chromium's own security descriptors, plus SIDs
 * of heel's own names computed independently with Python:
 *
 *   import hashlib, struct
 *   def ac(n):  # DeriveAppContainerSidFromAppContainerName
 *       d = hashlib.sha256(n.lower().encode('utf-16-le')).digest()
 *       return 'S-1-15-2-' + '-'.join(str(x) for x in struct.unpack('<7I', d[:28]))
 *   def cap(n):  # DeriveCapabilitySidsFromName, the capability SID
 *       d = hashlib.sha256(n.upper().encode('utf-16-le')).digest()
 *       return 'S-1-15-3-1024-' + '-'.join(str(x) for x in struct.unpack('<8I', d))
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "acl_sid.h"

static void
expect_ac(const char *name, const char *want)
{
	char sid[ACL_SID_SIZE];

	cr_assert_eq(acl_appcontainer_sid(name, sid, sizeof(sid)), 0, "%s", name);
	cr_assert_str_eq(sid, want, "%s", name);
}

static void
expect_cap(const char *name, const char *want)
{
	char sid[ACL_SID_SIZE];

	cr_assert_eq(acl_capability_sid(name, sid, sizeof(sid)), 0, "%s", name);
	cr_assert_str_eq(sid, want, "%s", name);
}

Test(acl_sid, edge_appcontainer)
{
	/* Microsoft Edge's package SID, as Windows lists it in ACLs. */
	expect_ac("Microsoft.MicrosoftEdge_8wekyb3d8bbwe",
		  "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-"
		  "737981194");
	/* Windows lower-cases the name first. */
	expect_ac("MICROSOFT.MICROSOFTEDGE_8WEKYB3D8BBWE",
		  "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-"
		  "737981194");
}

Test(acl_sid, heel_names_python_vectors)
{
	expect_ac("heel.p.0123456789abcdef",
		  "S-1-15-2-384519889-1745207773-3302655-2615065697-114448322-204684748-4662919");
	expect_ac("heel.p.ffffffffffffffff",
		  "S-1-15-2-3822729855-19296592-1385412663-4286731857-717723813-3356161583-"
		  "3073584422");
}

Test(acl_sid, container_name_from_digest)
{
	uint8_t d[32];
	char name[ACL_NAME_SIZE];

	for (int i = 0; i < 32; i++)
		d[i] = (uint8_t)(0x01 + 0x22 * i);
	acl_container_name(d, name);
	cr_assert_str_eq(name, "heel.p.0123456789abcdef");
	memset(d, 0xff, sizeof(d));
	acl_container_name(d, name);
	cr_assert_str_eq(name, "heel.p.ffffffffffffffff");
}

Test(acl_sid, well_known_capabilities)
{
	expect_cap("internetClient", "S-1-15-3-1");
	expect_cap("internetClientServer", "S-1-15-3-2");
	expect_cap("privateNetworkClientServer", "S-1-15-3-3");
	expect_cap("picturesLibrary", "S-1-15-3-4");
	expect_cap("contacts", "S-1-15-3-12");
	cr_assert_eq(acl_capability_well_known("documentsLibrary"), 7);
	cr_assert_eq(acl_capability_well_known("lpacCom"), 0);
	/* Well-known names are exact: another spelling is a named one. */
	cr_assert_eq(acl_capability_well_known("InternetClient"), 0);
}

Test(acl_sid, named_capabilities_match_windows)
{
	/* Audiosrv's RPC endpoint grants GR to this SID (lpacMedia). */
	expect_cap("lpacMedia", "S-1-15-3-1024-1692970155-4054893335-185714091-3362601943-"
				"3526593181-1159816984-2199008581-497492991");
	/* The event log channels' SDDL (lpacInstrumentation). */
	expect_cap("lpacInstrumentation", "S-1-15-3-1024-3153509613-960666767-3724611135-"
					  "2725662640-12138253-543910227-1950414635-4190290187");
	/* The print spooler's LPAC capability (lpacPrinting). */
	expect_cap("lpacPrinting", "S-1-15-3-1024-4044835139-2658482041-3127973164-329287231-"
				   "3865880861-1938685643-461067658-1087000422");
	/* Chromium's build instructions grant this SID RX (chromeInstallFiles). */
	expect_cap("chromeInstallFiles", "S-1-15-3-1024-3424233489-972189580-2057154623-"
					 "747635277-1604371224-316187997-3786583170-1043257646");
	expect_cap("registryRead", "S-1-15-3-1024-1065365936-1281604716-3511738428-1654721687-"
				   "432734479-3232135806-4053264122-3456934681");
	/* Upper-cased first, so the case of the name does not matter. */
	expect_cap("LPACMEDIA", "S-1-15-3-1024-1692970155-4054893335-185714091-3362601943-"
				"3526593181-1159816984-2199008581-497492991");
}

Test(acl_sid, refusals)
{
	char sid[ACL_SID_SIZE], tiny[12];

	/* Windows folds other characters with its own tables: not guessed. */
	cr_assert_eq(acl_appcontainer_sid("heel.p.\xc3\xa9", sid, sizeof(sid)), -EINVAL);
	cr_assert_eq(acl_capability_sid("caf\xc3\xa9", sid, sizeof(sid)), -EINVAL);
	cr_assert_eq(acl_appcontainer_sid("heel.p.0123456789abcdef", tiny, sizeof(tiny)), -ENOSPC);
	cr_assert_eq(acl_capability_sid("lpacMedia", tiny, sizeof(tiny)), -ENOSPC);
	cr_assert_eq(acl_capability_sid("internetClient", tiny, 8), -ENOSPC);
}
