/* test_cor_abi.c - checks sxs_cor.h against the runtime's ABI: IID bytes, GUID comparison, and
 * that a call through each vtable lands in the slot the runtime uses.
 *
 * The slot checks build a fake object whose vtable is a plain array of pointers filled by index,
 * then call through the named member; if the struct's member order were off by one, the call
 * would land in a trap instead of the mock at the runtime's slot number.
 */
/* The tables of IIDs and slots below are aligned by hand. */
/* clang-format off */

#include <glib.h>
#include <string.h>

#include "sxs_cor.h"
#include "sxs_hresult.h"

/* --- GUID strings ------------------------------------------------------------------------- */

static int hex_nibble(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}" (braces optional) into the 16 bytes a GUID
 * occupies in memory on x86-64: the first three groups little-endian, the last two as written.
 * Deliberately independent of struct GUID so that it can check the field layout too. */
static bool parse_guid_bytes(const char *s, uint8_t ret_bytes[16]) {
    /* Byte positions in memory, in the order the hex pairs appear in the string. */
    static const int order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
    uint8_t bytes[16];
    size_t len = strlen(s);
    if (len == 38) {
        if (s[0] != '{' || s[37] != '}')
            return false;
        s++;
        len -= 2;
    }
    if (len != 36)
        return false;
    int k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int hi = hex_nibble(s[i]), lo = hex_nibble(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        bytes[order[k++]] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    memcpy(ret_bytes, bytes, 16);
    return true;
}

static void assert_guid_is(const GUID *guid, const char *text) {
    uint8_t expected[16];
    g_assert_true(parse_guid_bytes(text, expected));
    g_assert_cmpmem(guid, sizeof(GUID), expected, sizeof(expected));
}

static void test_guid_parser(void) {
    uint8_t b[16];
    g_assert_true(parse_guid_bytes("{00112233-4455-6677-8899-AABBCCDDEEFF}", b));
    static const uint8_t want[16] = {0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66,
                                     0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    g_assert_cmpmem(b, 16, want, 16);
    g_assert_false(parse_guid_bytes("{00112233-4455-6677-8899-AABBCCDDEEF}", b));
    g_assert_false(parse_guid_bytes("00112233-4455-6677-8899_AABBCCDDEEFF", b));
    g_assert_false(parse_guid_bytes("{00112233-4455-6677-8899-AABBCCDDEEFG}", b));
}

/* String forms as published (corprof.idl uuid() attributes, cor.h, COM), typed here
 * independently of the initializers in sxs_cor.c. */
static void test_guids(void) {
    assert_guid_is(&IID_IUnknown, "{00000000-0000-0000-C000-000000000046}");
    assert_guid_is(&IID_IClassFactory, "{00000001-0000-0000-C000-000000000046}");
    assert_guid_is(&IID_ICorProfilerCallback, "{176FBED1-A55C-4796-98CA-A9DA0EF883E7}");
    assert_guid_is(&IID_ICorProfilerCallback2, "{8A8CC829-CCF2-49fe-BBAE-0F022228071A}");
    assert_guid_is(&IID_ICorProfilerCallback3, "{4FD2ED52-7731-4b8d-9469-03D2CC3086C5}");
    assert_guid_is(&IID_ICorProfilerCallback8, "{5BED9B15-C079-4D47-BFE2-215A140C07E0}");
    assert_guid_is(&IID_ICorProfilerCallback10, "{CEC5B60E-C69C-495F-87F6-84D28EE16FFB}");
    assert_guid_is(&IID_ICorProfilerCallback11, "{42350846-AAED-47F7-B128-FD0C98881CDE}");
    assert_guid_is(&IID_ICorProfilerInfo, "{28B5557D-3F3F-48b4-90B2-5F9EEA2F6C48}");
    assert_guid_is(&IID_ICorProfilerInfo2, "{CC0935CD-A518-487d-B0BB-A93214E65478}");
    assert_guid_is(&IID_ICorProfilerInfo3, "{B555ED4F-452A-4E54-8B39-B5360BAD32A0}");
    assert_guid_is(&IID_ICorProfilerInfo4, "{0d8fdcaa-6257-47bf-b1bf-94dac88466ee}");
    assert_guid_is(&IID_ICorProfilerInfo8, "{C5AC80A6-782E-4716-8044-39598C60CFBF}");
    assert_guid_is(&IID_ICorProfilerInfo10, "{2F1B5152-C869-40C9-AA5F-3ABE026BD720}");
    assert_guid_is(&IID_ICorProfilerInfo12, "{27b24ccd-1cb1-47c5-96ee-98190dc30959}");
    assert_guid_is(&IID_ICorProfilerInfo15, "{B446462D-BD22-41DD-872D-DC714C49EB56}");
    assert_guid_is(&IID_ICorProfilerThreadEnum, "{571194f7-25ed-419f-aa8b-7016b3159701}");
    assert_guid_is(&IID_ICorProfilerModuleEnum, "{b0266d75-2081-4493-af7f-028ba34db891}");
    assert_guid_is(&IID_IMetaDataImport, "{7DAC8207-D3AE-4c75-9B67-92801A497D44}");
    assert_guid_is(&CLSID_SxsProfiler, "{0560F28C-910E-4FDA-94A2-5FACD8966E48}");

    /* The struct fields read back as the string's groups. */
    g_assert_cmphex(IID_ICorProfilerCallback2.Data1, ==, 0x8A8CC829u);
    g_assert_cmphex(IID_ICorProfilerCallback2.Data2, ==, 0xCCF2u);
    g_assert_cmphex(IID_ICorProfilerCallback2.Data3, ==, 0x49FEu);
    g_assert_cmphex(IID_ICorProfilerCallback2.Data4[0], ==, 0xBBu);
    g_assert_cmphex(IID_ICorProfilerCallback2.Data4[7], ==, 0x1Au);
}

static const GUID *const all_iids[] = {
    &IID_IUnknown,
    &IID_IClassFactory,
    &IID_ICorProfilerCallback,
    &IID_ICorProfilerCallback2,
    &IID_ICorProfilerCallback3,
    &IID_ICorProfilerCallback4,
    &IID_ICorProfilerCallback5,
    &IID_ICorProfilerCallback6,
    &IID_ICorProfilerCallback7,
    &IID_ICorProfilerCallback8,
    &IID_ICorProfilerCallback9,
    &IID_ICorProfilerCallback10,
    &IID_ICorProfilerCallback11,
    &IID_ICorProfilerInfo,
    &IID_ICorProfilerInfo2,
    &IID_ICorProfilerInfo3,
    &IID_ICorProfilerInfo4,
    &IID_ICorProfilerInfo5,
    &IID_ICorProfilerInfo6,
    &IID_ICorProfilerInfo7,
    &IID_ICorProfilerInfo8,
    &IID_ICorProfilerInfo9,
    &IID_ICorProfilerInfo10,
    &IID_ICorProfilerInfo11,
    &IID_ICorProfilerInfo12,
    &IID_ICorProfilerInfo13,
    &IID_ICorProfilerInfo14,
    &IID_ICorProfilerInfo15,
    &IID_ICorProfilerObjectEnum,
    &IID_ICorProfilerFunctionEnum,
    &IID_ICorProfilerModuleEnum,
    &IID_ICorProfilerMethodEnum,
    &IID_ICorProfilerThreadEnum,
    &IID_IMethodMalloc,
    &IID_ICorProfilerFunctionControl,
    &IID_ICorProfilerAssemblyReferenceProvider,
    &IID_IMetaDataImport,
    &IID_IMetaDataImport2,
    &CLSID_SxsProfiler,
};

static void test_guid_equal(void) {
    GUID copy = IID_ICorProfilerCallback11;
    g_assert_true(sxs_guid_equal(&copy, &IID_ICorProfilerCallback11));
    copy.Data4[7] ^= 1;
    g_assert_false(sxs_guid_equal(&copy, &IID_ICorProfilerCallback11));
    copy = IID_ICorProfilerCallback11;
    copy.Data1 ^= 0x80000000u;
    g_assert_false(sxs_guid_equal(&copy, &IID_ICorProfilerCallback11));

    /* No two identifiers collide (a copy-paste slip would make QueryInterface ambiguous). */
    size_t n = G_N_ELEMENTS(all_iids);
    g_assert_cmpuint(n, ==, 39);
    for (size_t i = 0; i < n; i++) {
        g_assert_true(sxs_guid_equal(all_iids[i], all_iids[i]));
        for (size_t j = i + 1; j < n; j++)
            g_assert_false(sxs_guid_equal(all_iids[i], all_iids[j]));
    }
}

/* --- Slot dispatch ------------------------------------------------------------------------ */

/* Which mock slot ran last, and whether any other slot ran. Single-threaded test state. */
static int hit_slot = -1;
static int trap_hits = 0;

/* Fills every slot that has no mock: reached only through a member at the wrong offset. */
static HRESULT trap(void) {
    trap_hits++;
    return E_UNEXPECTED;
}

static void reset_hits(void) {
    hit_slot = -1;
    trap_hits = 0;
}

/* ICorProfilerInfo15: slots are filled by the runtime's numbers, then called by name. */
typedef union {
    void *slots[115];
    ICorProfilerInfo15Vtbl vtbl;
} InfoTable;

static const void *const snapshot_client_data = &hit_slot;

static HRESULT mock_snapshot_callback(FunctionID funcId, UINT_PTR ip, COR_PRF_FRAME_INFO frameInfo,
                                      ULONG32 contextSize, BYTE context[], void *clientData) {
    g_assert_cmpuint(funcId, ==, 0x1111);
    g_assert_cmpuint(ip, ==, 0x2222);
    g_assert_cmpuint(frameInfo, ==, 0x3333);
    g_assert_cmpuint(contextSize, ==, SXS_CONTEXT_SIZE_CLASSIC);
    g_assert_nonnull(context);
    g_assert_true(clientData == snapshot_client_data);
    return S_FALSE;
}

static HRESULT mock_DoStackSnapshot(ICorProfilerInfo15 *This, ThreadID thread,
                                    StackSnapshotCallback *callback, ULONG32 infoFlags,
                                    void *clientData, BYTE context[], ULONG32 contextSize) {
    (void)This;
    hit_slot = 36;
    g_assert_cmpuint(thread, ==, 0xABCDEF);
    g_assert_cmpuint(infoFlags, ==, COR_PRF_SNAPSHOT_REGISTER_CONTEXT);
    /* Hand the walk result straight back: abort like the runtime does on a non-S_OK return. */
    HRESULT hr = callback(0x1111, 0x2222, 0x3333, contextSize, context, clientData);
    return hr == S_OK ? S_OK : CORPROF_E_STACKSNAPSHOT_ABORTED;
}

static HRESULT mock_GetFunctionFromIP(ICorProfilerInfo15 *This, LPCBYTE ip,
                                      FunctionID *pFunctionId) {
    (void)This;
    hit_slot = 7;
    *pFunctionId = (FunctionID)(uintptr_t)ip + 1;
    return S_OK;
}

static HRESULT mock_SetEventMask2(ICorProfilerInfo15 *This, DWORD lo, DWORD hi) {
    (void)This;
    hit_slot = 82;
    g_assert_cmphex(lo, ==, COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_STACK_SNAPSHOT);
    g_assert_cmphex(hi, ==, COR_PRF_HIGH_MONITOR_NONE);
    return S_OK;
}

static HRESULT mock_SuspendRuntime(ICorProfilerInfo15 *This) {
    (void)This;
    hit_slot = 97;
    return S_OK;
}

static HRESULT mock_EnumerateGCHeapObjects(ICorProfilerInfo15 *This, ObjectCallback callback,
                                           void *callbackState) {
    (void)This;
    (void)callback;
    (void)callbackState;
    hit_slot = 114;
    return S_OK;
}

static void test_info_slots(void) {
    InfoTable table;
    for (size_t i = 0; i < G_N_ELEMENTS(table.slots); i++)
        table.slots[i] = (void *)trap;
    table.slots[7] = (void *)mock_GetFunctionFromIP;
    table.slots[36] = (void *)mock_DoStackSnapshot;
    table.slots[82] = (void *)mock_SetEventMask2;
    table.slots[97] = (void *)mock_SuspendRuntime;
    table.slots[114] = (void *)mock_EnumerateGCHeapObjects;
    ICorProfilerInfo15 object = {.lpVtbl = &table.vtbl};
    ICorProfilerInfo15 *info = &object;

    reset_hits();
    BYTE context[SXS_CONTEXT_SIZE_CLASSIC] = {0};
    HRESULT hr = info->lpVtbl->DoStackSnapshot(info, 0xABCDEF, mock_snapshot_callback,
                                               COR_PRF_SNAPSHOT_REGISTER_CONTEXT,
                                               (void *)snapshot_client_data, context,
                                               sizeof(context));
    g_assert_cmpint(hit_slot, ==, 36);
    g_assert_cmphex((uint32_t)hr, ==, 0x80131361u);
    g_assert_cmpint(trap_hits, ==, 0);

    reset_hits();
    FunctionID fid = 0;
    hr = info->lpVtbl->GetFunctionFromIP(info, (LPCBYTE)(uintptr_t)0x4000, &fid);
    g_assert_cmpint(hit_slot, ==, 7);
    g_assert_cmpint(hr, ==, S_OK);
    g_assert_cmpuint(fid, ==, 0x4001);

    reset_hits();
    hr = info->lpVtbl->SetEventMask2(info,
                                     COR_PRF_MONITOR_JIT_COMPILATION |
                                         COR_PRF_ENABLE_STACK_SNAPSHOT,
                                     COR_PRF_HIGH_MONITOR_NONE);
    g_assert_cmpint(hit_slot, ==, 82);
    g_assert_cmpint(hr, ==, S_OK);

    reset_hits();
    g_assert_cmpint(info->lpVtbl->SuspendRuntime(info), ==, S_OK);
    g_assert_cmpint(hit_slot, ==, 97);

    reset_hits();
    g_assert_cmpint(info->lpVtbl->EnumerateGCHeapObjects(info, NULL, NULL), ==, S_OK);
    g_assert_cmpint(hit_slot, ==, 114);

    /* A neighbour of a mocked slot goes to the trap: the table really is indexed. */
    reset_hits();
    g_assert_cmpint(info->lpVtbl->ResumeRuntime(info), ==, E_UNEXPECTED);
    g_assert_cmpint(trap_hits, ==, 1);
    g_assert_cmpint(hit_slot, ==, -1);
}

/* ICorProfilerCallback11: the runtime calls slot numbers; our struct must put the named
 * members there. Here the table is built by name and read back by number. */
typedef union {
    void *slots[98];
    ICorProfilerCallback11Vtbl vtbl;
} CallbackTable;

static HRESULT mock_Initialize(ICorProfilerCallback11 *This, IUnknown *pInfo) {
    (void)This;
    (void)pInfo;
    return S_OK;
}

static HRESULT mock_JITCompilationStarted(ICorProfilerCallback11 *This, FunctionID f, BOOL b) {
    (void)This;
    (void)f;
    (void)b;
    return S_OK;
}

static HRESULT mock_LoadAsNotificationOnly(ICorProfilerCallback11 *This, BOOL *pb) {
    (void)This;
    *pb = FALSE;
    return S_OK;
}

static void test_callback_slots(void) {
    CallbackTable table;
    memset(&table, 0, sizeof(table));
    table.vtbl.Initialize = mock_Initialize;
    table.vtbl.JITCompilationStarted = mock_JITCompilationStarted;
    table.vtbl.LoadAsNotificationOnly = mock_LoadAsNotificationOnly;

    g_assert_true(table.slots[3] == (void *)mock_Initialize);
    g_assert_true(table.slots[23] == (void *)mock_JITCompilationStarted);
    g_assert_true(table.slots[97] == (void *)mock_LoadAsNotificationOnly);
    size_t filled = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(table.slots); i++)
        filled += table.slots[i] != NULL;
    g_assert_cmpuint(filled, ==, 3);

    /* Call the way the runtime does: fetch slot 97 of the object's vtable and pass the object. */
    ICorProfilerCallback11 object = {.lpVtbl = &table.vtbl};
    void *const *vtable = *(void *const *const *)&object;
    HRESULT (*slot97)(ICorProfilerCallback11 *, BOOL *) =
        (HRESULT(*)(ICorProfilerCallback11 *, BOOL *))vtable[97];
    BOOL only = TRUE;
    g_assert_cmpint(slot97(&object, &only), ==, S_OK);
    g_assert_cmpint(only, ==, FALSE);
}

/* IMetaDataImport: the three methods name resolution relies on. */
typedef union {
    void *slots[65];
    IMetaDataImportVtbl vtbl;
} MetaDataTable;

static HRESULT mock_GetTypeDefProps(IMetaDataImport *This, mdTypeDef td, LPWSTR szTypeDef,
                                    ULONG cchTypeDef, ULONG *pchTypeDef, DWORD *pdwTypeDefFlags,
                                    mdToken *ptkExtends) {
    (void)This;
    (void)td;
    (void)szTypeDef;
    (void)cchTypeDef;
    (void)pchTypeDef;
    (void)pdwTypeDefFlags;
    (void)ptkExtends;
    hit_slot = 12;
    return S_OK;
}

static HRESULT mock_GetMethodProps(IMetaDataImport *This, mdMethodDef mb, mdTypeDef *pClass,
                                   LPWSTR szMethod, ULONG cchMethod, ULONG *pchMethod,
                                   DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                   ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags) {
    (void)This;
    (void)szMethod;
    (void)cchMethod;
    (void)pdwAttr;
    (void)ppvSigBlob;
    (void)pcbSigBlob;
    (void)pulCodeRVA;
    (void)pdwImplFlags;
    hit_slot = 30;
    g_assert_cmphex(SXS_TOKEN_TYPE(mb), ==, mdtMethodDef);
    *pClass = mdtTypeDef | 2;
    *pchMethod = 5;
    return S_OK;
}

static HRESULT mock_GetNestedClassProps(IMetaDataImport *This, mdTypeDef nested,
                                        mdTypeDef *ptdEnclosingClass) {
    (void)This;
    hit_slot = 62;
    *ptdEnclosingClass = nested - 1;
    return S_OK;
}

static void test_metadata_slots(void) {
    MetaDataTable table;
    for (size_t i = 0; i < G_N_ELEMENTS(table.slots); i++)
        table.slots[i] = (void *)trap;
    table.slots[12] = (void *)mock_GetTypeDefProps;
    table.slots[30] = (void *)mock_GetMethodProps;
    table.slots[62] = (void *)mock_GetNestedClassProps;
    IMetaDataImport object = {.lpVtbl = &table.vtbl};
    IMetaDataImport *md = &object;

    reset_hits();
    g_assert_cmpint(md->lpVtbl->GetTypeDefProps(md, mdtTypeDef | 2, NULL, 0, NULL, NULL, NULL),
                    ==, S_OK);
    g_assert_cmpint(hit_slot, ==, 12);

    reset_hits();
    mdTypeDef cls = 0;
    ULONG len = 0;
    g_assert_cmpint(md->lpVtbl->GetMethodProps(md, mdtMethodDef | 7, &cls, NULL, 0, &len, NULL,
                                               NULL, NULL, NULL, NULL),
                    ==, S_OK);
    g_assert_cmpint(hit_slot, ==, 30);
    g_assert_cmphex(cls, ==, 0x02000002u);
    g_assert_cmpuint(len, ==, 5);
    g_assert_cmphex(SXS_TOKEN_RID(mdtMethodDef | 7), ==, 7);

    reset_hits();
    mdTypeDef outer = 0;
    g_assert_cmpint(md->lpVtbl->GetNestedClassProps(md, mdtTypeDef | 9, &outer), ==, S_OK);
    g_assert_cmpint(hit_slot, ==, 62);
    g_assert_cmphex(outer, ==, 0x02000008u);
    g_assert_cmpint(trap_hits, ==, 0);
}

/* --- Constants ---------------------------------------------------------------------------- */

static void test_constants(void) {
    g_assert_true(SUCCEEDED(S_OK) && SUCCEEDED(S_FALSE));
    g_assert_true(FAILED(E_FAIL) && FAILED(E_NOINTERFACE) && FAILED(CLASS_E_CLASSNOTAVAILABLE));
    g_assert_true(FAILED(CORPROF_E_PROFILER_CANCEL_ACTIVATION));
    g_assert_cmphex((uint32_t)CORPROF_E_PROFILER_CANCEL_ACTIVATION, ==, 0x80131375u);
    g_assert_cmphex((uint32_t)CORPROF_E_STACKSNAPSHOT_UNSAFE, ==, 0x80131360u);
    g_assert_cmphex((uint32_t)CORPROF_E_NOT_MANAGED_THREAD, ==, 0x80131355u);
    g_assert_cmphex((uint32_t)E_NOTIMPL, ==, 0x80004001u);
    g_assert_cmphex((uint32_t)HOST_E_INVALIDOPERATION, ==, 0x80131022u);
    g_assert_cmphex(COR_PRF_ENABLE_STACK_SNAPSHOT, ==, 0x10000000u);
    g_assert_cmphex(COR_PRF_DISABLE_ALL_NGEN_IMAGES, ==, 0x80000000u);
    g_assert_cmpint(SXS_CONTEXT_RSP_OFFSET, ==, 152);
    g_assert_cmpint(SXS_CONTEXT_RBP_OFFSET, ==, 160);
    g_assert_cmpint(SXS_CONTEXT_RIP_OFFSET, ==, 248);
    g_assert_cmpint(COR_PRF_CORE_CLR, ==, 2);
}

/* --- HRESULT names ------------------------------------------------------------------------ */

/* The constants the attach answers added to sxs_cor.h, by value (corerror.h, winerror.h). */
static void test_hresult_constants(void) {
    g_assert_cmphex((uint32_t)COR_E_FILENOTFOUND,           ==, 0x80070002u);
    g_assert_cmphex((uint32_t)COR_E_DIRECTORYNOTFOUND,      ==, 0x80070003u);
    g_assert_cmphex((uint32_t)COR_E_BADIMAGEFORMAT,         ==, 0x8007000Bu);
    g_assert_cmphex((uint32_t)SXS_E_MOD_NOT_FOUND,          ==, 0x8007007Eu);
    g_assert_cmphex((uint32_t)COR_E_TIMEOUT,                ==, 0x80131505u);
    g_assert_cmphex((uint32_t)COR_E_NOTSUPPORTED,           ==, 0x80131515u);
    g_assert_cmphex((uint32_t)CORDIAGIPC_E_BAD_ENCODING,    ==, 0x80131384u);
    g_assert_cmphex((uint32_t)CORDIAGIPC_E_UNKNOWN_COMMAND, ==, 0x80131385u);
    g_assert_cmphex((uint32_t)CORDIAGIPC_E_UNKNOWN_MAGIC,   ==, 0x80131386u);
    g_assert_cmphex((uint32_t)CORDIAGIPC_E_UNKNOWN_ERROR,   ==, 0x80131387u);
}

/* Each name is its constant's, spelled as in sxs_cor.h; only attach answers carry a meaning. */
static void test_hresult_names(void) {
#define NAMED(c) {c, #c}
    static const struct { HRESULT hr; const char *name; } named[] = {
        NAMED(S_OK), NAMED(S_FALSE), NAMED(E_NOTIMPL), NAMED(E_NOINTERFACE), NAMED(E_FAIL),
        NAMED(E_UNEXPECTED), NAMED(CLASS_E_CLASSNOTAVAILABLE), NAMED(COR_E_FILENOTFOUND),
        NAMED(COR_E_DIRECTORYNOTFOUND), NAMED(E_ACCESSDENIED), NAMED(COR_E_BADIMAGEFORMAT),
        NAMED(E_OUTOFMEMORY), NAMED(E_INVALIDARG), NAMED(CORPROF_E_NOT_MANAGED_THREAD),
        NAMED(CORPROF_E_NOT_YET_AVAILABLE), NAMED(CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD),
        NAMED(CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX), NAMED(CORPROF_E_STACKSNAPSHOT_UNSAFE),
        NAMED(CORPROF_E_STACKSNAPSHOT_ABORTED), NAMED(CORPROF_E_UNSUPPORTED_CALL_SEQUENCE),
        NAMED(CORPROF_E_ASYNCHRONOUS_UNSAFE), NAMED(CORPROF_E_PROFILER_DETACHING),
        NAMED(CORPROF_E_PROFILER_NOT_ATTACHABLE), NAMED(CORPROF_E_PROFILER_ALREADY_ACTIVE),
        NAMED(CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER), NAMED(CORPROF_E_IPC_FAILED),
        NAMED(CORPROF_E_PROFILEE_PROCESS_NOT_FOUND), NAMED(CORPROF_E_CALLBACK3_REQUIRED),
        NAMED(CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER), NAMED(CORPROF_E_RUNTIME_UNINITIALIZED),
        NAMED(CORPROF_E_INCONSISTENT_WITH_FLAGS), NAMED(CORPROF_E_PROFILER_CANCEL_ACTIVATION),
        NAMED(CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE), NAMED(CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC),
        NAMED(CORDIAGIPC_E_BAD_ENCODING), NAMED(CORDIAGIPC_E_UNKNOWN_COMMAND),
        NAMED(CORDIAGIPC_E_UNKNOWN_MAGIC), NAMED(CORDIAGIPC_E_UNKNOWN_ERROR), NAMED(COR_E_TIMEOUT),
        NAMED(COR_E_NOTSUPPORTED),
    };
#undef NAMED
    for (size_t i = 0; i < G_N_ELEMENTS(named); i++) {
        const SxsHresult *h = sxs__hresult_find(named[i].hr);
        g_assert_nonnull(h);
        g_assert_cmphex((uint32_t)h->hr, ==, (uint32_t)named[i].hr);
        g_assert_cmpstr(h->name, ==, named[i].name);
        g_assert_cmpstr(sxs__hresult_name(named[i].hr), ==, named[i].name);
    }
    /* A Win32 error is named as the error. */
    g_assert_cmpstr(sxs__hresult_name(SXS_E_MOD_NOT_FOUND), ==, "ERROR_MOD_NOT_FOUND");

    g_assert_null(sxs__hresult_find((HRESULT)0x80001234u));
    g_assert_null(sxs__hresult_name((HRESULT)0x80001234u));
    g_assert_null(sxs__hresult_name(E_POINTER));

    g_assert_null(sxs__hresult_find(S_OK)->attach_meaning);
    g_assert_null(sxs__hresult_find(CORPROF_E_STACKSNAPSHOT_UNSAFE)->attach_meaning);
    g_assert_cmpstr(sxs__hresult_find(CORPROF_E_PROFILER_ALREADY_ACTIVE)->attach_meaning, ==,
                    "a profiler is already loaded in this runtime (it takes only one)");
    g_assert_cmpstr(sxs__hresult_find(SXS_E_MOD_NOT_FOUND)->attach_meaning, ==,
                    "the runtime could not load the profiler library");
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/callback/abi/guid-parser", test_guid_parser);
    g_test_add_func("/callback/abi/guids", test_guids);
    g_test_add_func("/callback/abi/guid-equal", test_guid_equal);
    g_test_add_func("/callback/abi/info-slots", test_info_slots);
    g_test_add_func("/callback/abi/callback-slots", test_callback_slots);
    g_test_add_func("/callback/abi/metadata-slots", test_metadata_slots);
    g_test_add_func("/callback/abi/constants", test_constants);
    g_test_add_func("/callback/abi/hresult-constants", test_hresult_constants);
    g_test_add_func("/callback/abi/hresult-names", test_hresult_names);
    return g_test_run();
}
/* clang-format on */
