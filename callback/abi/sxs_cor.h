/* sxs_cor.h - plain-C declaration of the CoreCLR profiling COM ABI (Linux x86-64).
 *
 * Written from the published interface definitions (corprof.idl, cor.h); no runtime header is
 * included. Names follow the IDL so that grep finds the same words here and in the runtime.
 *
 * How the ABI maps to C:
 *
 *     object ──► +0 lpVtbl ──► [0] QueryInterface  [1] AddRef  [2] Release  [3] ... [n]
 *
 *   - A COM object is any struct whose first word points to an array of function pointers.
 *     Slot n lives at byte offset 8*n. Calls are plain System V AMD64 calls (STDMETHODCALLTYPE
 *     is empty on non-x86): `this` is the first argument (RDI), the rest follow as usual.
 *   - Every profiling interface uses single inheritance, so one vtable that lists IUnknown and
 *     then the methods of version 1, 2, ... N in IDL order serves every version at once. Hence
 *     one struct for ICorProfilerCallback11 (98 slots) and one for ICorProfilerInfo15
 *     (115 slots); the lower-version names are aliases of the same type.
 *   - A pointer obtained by QueryInterface for a lower version (say ICorProfilerInfo4) has a
 *     vtable only as long as that version: call only the slots that version defines.
 *   - HRESULT, ULONG, DWORD, BOOL are 32-bit; WCHAR is UTF-16 (char16_t); IDs are pointer-sized.
 *
 * This header declares; it does not implement anything except sxs_guid_equal(). The IID
 * definitions live in sxs_cor.c.
 */
/* The vtables and constants below are tables aligned by hand, slot numbers in columns. */
/* clang-format off */

#ifndef SXS_COR_H
#define SXS_COR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <uchar.h>

#if !defined(__x86_64__) || !defined(__linux__)
#error "sxs_cor.h describes the Linux x86-64 ABI only"
#endif

/* ------------------------------------------------------------------------------------------ *
 * Basic types, as the PAL defines them on 64-bit Unix
 * ------------------------------------------------------------------------------------------ */

typedef int32_t HRESULT;
typedef uint32_t ULONG;
typedef uint32_t DWORD;
typedef uint32_t UINT;
typedef uint32_t ULONG32;
typedef uint32_t UINT32;
typedef int32_t LONG;
typedef int32_t LONG32;
typedef int32_t INT;
typedef int32_t BOOL;
typedef uint8_t BYTE;
typedef uint8_t UCHAR;
typedef uint8_t UINT8;
typedef uint16_t USHORT;
typedef uint16_t WORD;
typedef uint64_t UINT64;
typedef uint64_t ULONG64;
typedef int64_t LONG64;
typedef uintptr_t UINT_PTR;
typedef uintptr_t ULONG_PTR;
typedef size_t SIZE_T;
typedef char16_t WCHAR;
typedef WCHAR *LPWSTR;
typedef const WCHAR *LPCWSTR;
typedef void *PVOID;
typedef void *HANDLE;
typedef BYTE *LPBYTE;
typedef const BYTE *LPCBYTE;

#ifndef FALSE
#define FALSE (0)
#endif
#ifndef TRUE
#define TRUE (!FALSE)
#endif

/* GUID: four little-endian fields, 16 bytes. */
typedef struct GUID {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t Data4[8];
} GUID;

typedef GUID IID;
typedef GUID CLSID;
typedef const GUID *REFGUID;
typedef const GUID *REFIID;
typedef const GUID *REFCLSID;
typedef const GUID *LPCGUID;

/* Metadata tokens (corhdr.h): 32-bit, high byte = table, low 24 bits = row. */
typedef uint32_t mdToken;
typedef mdToken mdModule;
typedef mdToken mdTypeRef;
typedef mdToken mdTypeDef;
typedef mdToken mdFieldDef;
typedef mdToken mdMethodDef;
typedef mdToken mdParamDef;
typedef mdToken mdInterfaceImpl;
typedef mdToken mdMemberRef;
typedef mdToken mdCustomAttribute;
typedef mdToken mdPermission;
typedef mdToken mdSignature;
typedef mdToken mdEvent;
typedef mdToken mdProperty;
typedef mdToken mdModuleRef;
typedef mdToken mdTypeSpec;
typedef mdToken mdAssembly;
typedef mdToken mdAssemblyRef;
typedef mdToken mdFile;
typedef mdToken mdExportedType;
typedef mdToken mdManifestResource;
typedef mdToken mdGenericParam;
typedef mdToken mdMethodSpec;
typedef mdToken mdGenericParamConstraint;
typedef mdToken mdString;

#define mdTokenNil ((mdToken)0)
#define mdtModule ((mdToken)0x00000000)
#define mdtTypeRef ((mdToken)0x01000000)
#define mdtTypeDef ((mdToken)0x02000000)
#define mdtFieldDef ((mdToken)0x04000000)
#define mdtMethodDef ((mdToken)0x06000000)
#define mdtParamDef ((mdToken)0x08000000)
#define mdtMemberRef ((mdToken)0x0a000000)
#define mdtModuleRef ((mdToken)0x1a000000)
#define mdtTypeSpec ((mdToken)0x1b000000)
#define mdtAssemblyRef ((mdToken)0x23000000)
#define mdtMethodSpec ((mdToken)0x2b000000)
#define SXS_TOKEN_TYPE(tk) ((mdToken)(tk) & 0xff000000u)
#define SXS_TOKEN_RID(tk) ((mdToken)(tk) & 0x00ffffffu)

/* CorOpenFlags for ICorProfilerInfo::GetModuleMetaData (only these two are valid there). */
enum { ofRead = 0x0, ofWrite = 0x1 };

typedef ULONG CorElementType;
typedef BYTE COR_SIGNATURE;
typedef COR_SIGNATURE *PCOR_SIGNATURE;
typedef const COR_SIGNATURE *PCCOR_SIGNATURE;
typedef void *HCORENUM;
typedef const char *MDUTF8CSTR;
typedef const void *UVCP_CONSTANT;

/* Runtime IDs: opaque, pointer-sized (FunctionID = MethodDesc*, ThreadID = Thread*, ...). */
typedef UINT_PTR ProcessID;
typedef UINT_PTR AssemblyID;
typedef UINT_PTR AppDomainID;
typedef UINT_PTR ModuleID;
typedef UINT_PTR ClassID;
typedef UINT_PTR ThreadID;
typedef UINT_PTR ContextID;
typedef UINT_PTR FunctionID;
typedef UINT_PTR ObjectID;
typedef UINT_PTR GCHandleID;
typedef UINT_PTR COR_PRF_ELT_INFO;
typedef UINT_PTR ReJITID;
typedef UINT_PTR COR_PRF_FRAME_INFO;
typedef void **ObjectHandleID;

typedef UINT_PTR EVENTPIPE_PROVIDER;
typedef UINT_PTR EVENTPIPE_EVENT;
typedef UINT64 EVENTPIPE_SESSION;

/* What the ELT3 hooks receive: the FunctionID, or whatever the FunctionIDMapper returned. */
typedef union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
} FunctionIDOrClientID;

/* ------------------------------------------------------------------------------------------ *
 * Structures
 * ------------------------------------------------------------------------------------------ */

typedef struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL fAccurate;
} COR_IL_MAP;

/* Special ilOffset values in a COR_DEBUG_IL_TO_NATIVE_MAP entry. */
typedef enum CorDebugIlToNativeMappingTypes {
    NO_MAPPING = -1,
    PROLOG = -2,
    EPILOG = -3
} CorDebugIlToNativeMappingTypes;

typedef struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
} COR_DEBUG_IL_TO_NATIVE_MAP;

typedef struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset;
} COR_FIELD_OFFSET;

typedef struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
} COR_PRF_FUNCTION_ARGUMENT_RANGE;

/* Variable length: numRanges entries follow; ranges[1] keeps the declared size. */
typedef struct COR_PRF_FUNCTION_ARGUMENT_INFO {
    ULONG numRanges;
    ULONG totalArgumentSize;
    COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
} COR_PRF_FUNCTION_ARGUMENT_INFO;

/* One contiguous chunk of native code. */
typedef struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
} COR_PRF_CODE_INFO;

typedef struct COR_PRF_FUNCTION {
    FunctionID functionId;
    ReJITID reJitId;
} COR_PRF_FUNCTION;

typedef struct COR_PRF_METHOD {
    ModuleID moduleId;
    mdMethodDef methodId;
} COR_PRF_METHOD;

typedef struct OSINFO {
    DWORD dwOSPlatformId;
    DWORD dwOSMajorVersion;
    DWORD dwOSMinorVersion;
} OSINFO;

typedef struct ASSEMBLYMETADATA {
    USHORT usMajorVersion;
    USHORT usMinorVersion;
    USHORT usBuildNumber;
    USHORT usRevisionNumber;
    LPWSTR szLocale;
    ULONG cbLocale;
    DWORD *rProcessor;
    ULONG ulProcessor;
    OSINFO *rOS;
    ULONG ulOS;
} ASSEMBLYMETADATA;

typedef struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
    void *pbPublicKeyOrToken;
    ULONG cbPublicKeyOrToken;
    LPCWSTR szName;
    ASSEMBLYMETADATA *pMetaData;
    void *pbHashValue;
    ULONG cbHashValue;
    DWORD dwAssemblyRefFlags;
} COR_PRF_ASSEMBLY_REFERENCE_INFO;

typedef struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR *providerName;
    UINT64 keywords;
    UINT32 loggingLevel;
    const WCHAR *filterData;
} COR_PRF_EVENTPIPE_PROVIDER_CONFIG;

typedef struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32 type;
    UINT32 elementType;
    const WCHAR *name;
} COR_PRF_EVENTPIPE_PARAM_DESC;

typedef struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
} COR_PRF_EVENT_DATA;

typedef struct COR_PRF_FILTER_DATA {
    UINT64 Ptr;
    UINT32 Size;
    UINT32 Type;
} COR_PRF_FILTER_DATA;

/* ------------------------------------------------------------------------------------------ *
 * Enumerations that appear in method signatures (all 4 bytes, checked below)
 * ------------------------------------------------------------------------------------------ */

typedef enum COR_PRF_SNAPSHOT_INFO {
    COR_PRF_SNAPSHOT_DEFAULT = 0x0,
    COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
    COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2, /* x86 only: E_INVALIDARG on x64 */
} COR_PRF_SNAPSHOT_INFO;

typedef enum COR_PRF_STATIC_TYPE {
    COR_PRF_FIELD_NOT_A_STATIC = 0x0,
    COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
    COR_PRF_FIELD_THREAD_STATIC = 0x2,
    COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
    COR_PRF_FIELD_RVA_STATIC = 0x8
} COR_PRF_STATIC_TYPE;

typedef enum COR_PRF_JIT_CACHE {
    COR_PRF_CACHED_FUNCTION_FOUND = 0,
    COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1
} COR_PRF_JIT_CACHE;

typedef enum COR_PRF_TRANSITION_REASON {
    COR_PRF_TRANSITION_CALL = 0,
    COR_PRF_TRANSITION_RETURN = 1
} COR_PRF_TRANSITION_REASON;

typedef enum COR_PRF_SUSPEND_REASON {
    COR_PRF_SUSPEND_OTHER = 0,
    COR_PRF_SUSPEND_FOR_GC = 1,
    COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
    COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
    COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
    COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
    COR_PRF_SUSPEND_FOR_GC_PREP = 7,
    COR_PRF_SUSPEND_FOR_REJIT = 8,
    COR_PRF_SUSPEND_FOR_PROFILER = 9,
} COR_PRF_SUSPEND_REASON;

typedef enum COR_PRF_RUNTIME_TYPE {
    COR_PRF_DESKTOP_CLR = 0x1,
    COR_PRF_CORE_CLR = 0x2,
} COR_PRF_RUNTIME_TYPE;

typedef enum COR_PRF_GC_ROOT_KIND {
    COR_PRF_GC_ROOT_OTHER = 0,
    COR_PRF_GC_ROOT_STACK = 1,
    COR_PRF_GC_ROOT_FINALIZER = 2,
    COR_PRF_GC_ROOT_HANDLE = 3
} COR_PRF_GC_ROOT_KIND;

typedef enum COR_PRF_GC_ROOT_FLAGS {
    COR_PRF_GC_ROOT_PINNING = 0x1,
    COR_PRF_GC_ROOT_WEAKREF = 0x2,
    COR_PRF_GC_ROOT_INTERIOR = 0x4,
    COR_PRF_GC_ROOT_REFCOUNTED = 0x8,
} COR_PRF_GC_ROOT_FLAGS;

typedef enum COR_PRF_FINALIZER_FLAGS {
    COR_PRF_FINALIZER_CRITICAL = 0x1
} COR_PRF_FINALIZER_FLAGS;

typedef enum COR_PRF_GC_GENERATION {
    COR_PRF_GC_GEN_0 = 0,
    COR_PRF_GC_GEN_1 = 1,
    COR_PRF_GC_GEN_2 = 2,
    COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
    COR_PRF_GC_PINNED_OBJECT_HEAP = 4
} COR_PRF_GC_GENERATION;

typedef enum COR_PRF_CLAUSE_TYPE {
    COR_PRF_CLAUSE_NONE = 0,
    COR_PRF_CLAUSE_FILTER = 1,
    COR_PRF_CLAUSE_CATCH = 2,
    COR_PRF_CLAUSE_FINALLY = 3,
} COR_PRF_CLAUSE_TYPE;

typedef enum COR_PRF_GC_REASON {
    COR_PRF_GC_OTHER = 0,
    COR_PRF_GC_INDUCED = 1
} COR_PRF_GC_REASON;

typedef enum COR_PRF_MODULE_FLAGS {
    COR_PRF_MODULE_DISK = 0x00000001,
    COR_PRF_MODULE_NGEN = 0x00000002,
    COR_PRF_MODULE_DYNAMIC = 0x00000004,
    COR_PRF_MODULE_COLLECTIBLE = 0x00000008,
    COR_PRF_MODULE_RESOURCE = 0x00000010,
    COR_PRF_MODULE_FLAT_LAYOUT = 0x00000020,
    COR_PRF_MODULE_WINDOWS_RUNTIME = 0x00000040,
} COR_PRF_MODULE_FLAGS;

typedef enum COR_PRF_REJIT_FLAGS {
    COR_PRF_REJIT_BLOCK_INLINING = 0x1,
    COR_PRF_REJIT_INLINING_CALLBACKS = 0x2
} COR_PRF_REJIT_FLAGS;

typedef enum COR_PRF_CODEGEN_FLAGS {
    COR_PRF_CODEGEN_DISABLE_INLINING = 0x0001,
    COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x0002,
    COR_PRF_CODEGEN_DEBUG_INFO = 0x0003,
} COR_PRF_CODEGEN_FLAGS;

typedef enum COR_PRF_HANDLE_TYPE {
    COR_PRF_HANDLE_TYPE_WEAK = 0x1,
    COR_PRF_HANDLE_TYPE_STRONG = 0x2,
    COR_PRF_HANDLE_TYPE_PINNED = 0x3,
} COR_PRF_HANDLE_TYPE;

typedef enum COR_PRF_EVENTPIPE_PARAM_TYPE {
    COR_PRF_EVENTPIPE_OBJECT = 1,
    COR_PRF_EVENTPIPE_BOOLEAN = 3,
    COR_PRF_EVENTPIPE_CHAR = 4,
    COR_PRF_EVENTPIPE_SBYTE = 5,
    COR_PRF_EVENTPIPE_BYTE = 6,
    COR_PRF_EVENTPIPE_INT16 = 7,
    COR_PRF_EVENTPIPE_UINT16 = 8,
    COR_PRF_EVENTPIPE_INT32 = 9,
    COR_PRF_EVENTPIPE_UINT32 = 10,
    COR_PRF_EVENTPIPE_INT64 = 11,
    COR_PRF_EVENTPIPE_UINT64 = 12,
    COR_PRF_EVENTPIPE_SINGLE = 13,
    COR_PRF_EVENTPIPE_DOUBLE = 14,
    COR_PRF_EVENTPIPE_DECIMAL = 15,
    COR_PRF_EVENTPIPE_DATETIME = 16,
    COR_PRF_EVENTPIPE_GUID = 17,
    COR_PRF_EVENTPIPE_STRING = 18,
    COR_PRF_EVENTPIPE_ARRAY = 19,
} COR_PRF_EVENTPIPE_PARAM_TYPE;

typedef enum COR_PRF_EVENTPIPE_LEVEL {
    COR_PRF_EVENTPIPE_LOGALWAYS = 0,
    COR_PRF_EVENTPIPE_CRITICAL = 1,
    COR_PRF_EVENTPIPE_ERROR = 2,
    COR_PRF_EVENTPIPE_WARNING = 3,
    COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
    COR_PRF_EVENTPIPE_VERBOSE = 5
} COR_PRF_EVENTPIPE_LEVEL;

/* Structures that need the enums above. */
typedef struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_GC_GENERATION_RANGE;

typedef struct COR_PRF_NONGC_HEAP_RANGE {
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
} COR_PRF_NONGC_HEAP_RANGE;

typedef struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
} COR_PRF_EX_CLAUSE_INFO;

/* ------------------------------------------------------------------------------------------ *
 * Event masks (DWORD bit sets; macros because some values do not fit an int enum)
 * ------------------------------------------------------------------------------------------ */

typedef DWORD COR_PRF_MONITOR;
#define COR_PRF_MONITOR_NONE ((DWORD)0x00000000u)
#define COR_PRF_MONITOR_FUNCTION_UNLOADS ((DWORD)0x00000001u)
#define COR_PRF_MONITOR_CLASS_LOADS ((DWORD)0x00000002u)
#define COR_PRF_MONITOR_MODULE_LOADS ((DWORD)0x00000004u)
#define COR_PRF_MONITOR_ASSEMBLY_LOADS ((DWORD)0x00000008u)
#define COR_PRF_MONITOR_APPDOMAIN_LOADS ((DWORD)0x00000010u)
#define COR_PRF_MONITOR_JIT_COMPILATION ((DWORD)0x00000020u)
#define COR_PRF_MONITOR_EXCEPTIONS ((DWORD)0x00000040u)
#define COR_PRF_MONITOR_GC ((DWORD)0x00000080u)
#define COR_PRF_MONITOR_OBJECT_ALLOCATED ((DWORD)0x00000100u)
#define COR_PRF_MONITOR_THREADS ((DWORD)0x00000200u)
#define COR_PRF_MONITOR_REMOTING ((DWORD)0x00000400u)
#define COR_PRF_MONITOR_CODE_TRANSITIONS ((DWORD)0x00000800u)
#define COR_PRF_MONITOR_ENTERLEAVE ((DWORD)0x00001000u)
#define COR_PRF_MONITOR_CCW ((DWORD)0x00002000u)
#define COR_PRF_MONITOR_REMOTING_COOKIE ((DWORD)0x00004400u)
#define COR_PRF_MONITOR_REMOTING_ASYNC ((DWORD)0x00008400u)
#define COR_PRF_MONITOR_SUSPENDS ((DWORD)0x00010000u)
#define COR_PRF_MONITOR_CACHE_SEARCHES ((DWORD)0x00020000u)
#define COR_PRF_ENABLE_REJIT ((DWORD)0x00040000u)
#define COR_PRF_ENABLE_INPROC_DEBUGGING ((DWORD)0x00080000u)
#define COR_PRF_ENABLE_JIT_MAPS ((DWORD)0x00100000u)
#define COR_PRF_DISABLE_INLINING ((DWORD)0x00200000u)
#define COR_PRF_DISABLE_OPTIMIZATIONS ((DWORD)0x00400000u)
#define COR_PRF_ENABLE_OBJECT_ALLOCATED ((DWORD)0x00800000u)
#define COR_PRF_MONITOR_CLR_EXCEPTIONS ((DWORD)0x01000000u)
#define COR_PRF_MONITOR_ALL ((DWORD)0x0107FFFFu)
#define COR_PRF_ENABLE_FUNCTION_ARGS ((DWORD)0x02000000u)
#define COR_PRF_ENABLE_FUNCTION_RETVAL ((DWORD)0x04000000u)
#define COR_PRF_ENABLE_FRAME_INFO ((DWORD)0x08000000u)
#define COR_PRF_ENABLE_STACK_SNAPSHOT ((DWORD)0x10000000u)
#define COR_PRF_USE_PROFILE_IMAGES ((DWORD)0x20000000u)
#define COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST ((DWORD)0x40000000u)
#define COR_PRF_DISABLE_ALL_NGEN_IMAGES ((DWORD)0x80000000u)
#define COR_PRF_ALL ((DWORD)0x8FFFFFFFu)
#define COR_PRF_REQUIRE_PROFILE_IMAGE                                                             \
    (COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE)
#define COR_PRF_ALLOWABLE_AFTER_ATTACH                                                            \
    (COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |    \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC |       \
     COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |        \
     COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS | \
     COR_PRF_ENABLE_REJIT)
#define COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER                                                   \
    (COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS |                             \
     COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |                              \
     COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |                          \
     COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS |    \
     COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS |          \
     COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |  \
     COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_CLR_EXCEPTIONS |                           \
     COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES)
/* Newest IDL; older runtimes also counted DISABLE_INLINING|DISABLE_OPTIMIZATIONS (0xEEF8CC00). */
#define COR_PRF_MONITOR_IMMUTABLE                                                                 \
    (COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING |                                \
     COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC |                           \
     COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS | COR_PRF_ENABLE_OBJECT_ALLOCATED | \
     COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO |  \
     COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST |          \
     COR_PRF_DISABLE_ALL_NGEN_IMAGES)

typedef DWORD COR_PRF_HIGH_MONITOR;
#define COR_PRF_HIGH_MONITOR_NONE ((DWORD)0x00000000u)
#define COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES ((DWORD)0x00000001u)
#define COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED ((DWORD)0x00000002u)
#define COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS ((DWORD)0x00000004u)
#define COR_PRF_HIGH_DISABLE_TIERED_COMPILATION ((DWORD)0x00000008u)
#define COR_PRF_HIGH_BASIC_GC ((DWORD)0x00000010u)
#define COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS ((DWORD)0x00000020u)
#define COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE ((DWORD)0x00000000u)
#define COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED ((DWORD)0x00000040u)
#define COR_PRF_HIGH_MONITOR_EVENT_PIPE ((DWORD)0x00000080u)
#define COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED ((DWORD)0x00000100u) /* newest runtimes only */
#define COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH                                                       \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |     \
     COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |                              \
     COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER                                              \
    (COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |     \
     COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |                            \
     COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |         \
     COR_PRF_HIGH_MONITOR_EVENT_PIPE)
#define COR_PRF_HIGH_MONITOR_IMMUTABLE COR_PRF_HIGH_DISABLE_TIERED_COMPILATION

/* COR_PRF_MISC: special IDs. */
#define PROFILER_PARENT_UNKNOWN ((UINT_PTR)0xFFFFFFFDu)
#define PROFILER_GLOBAL_CLASS ((UINT_PTR)0xFFFFFFFEu)
#define PROFILER_GLOBAL_MODULE ((UINT_PTR)0xFFFFFFFFu)

/* ------------------------------------------------------------------------------------------ *
 * HRESULTs
 * ------------------------------------------------------------------------------------------ */

#define SUCCEEDED(hr) ((HRESULT)(hr) >= 0)
#define FAILED(hr) ((HRESULT)(hr) < 0)

#define S_OK ((HRESULT)0x00000000)
#define S_FALSE ((HRESULT)0x00000001)
#define E_NOTIMPL ((HRESULT)0x80004001)
#define E_NOINTERFACE ((HRESULT)0x80004002)
#define E_POINTER ((HRESULT)0x80004003)
#define E_ABORT ((HRESULT)0x80004004)
#define E_FAIL ((HRESULT)0x80004005)
#define E_UNEXPECTED ((HRESULT)0x8000FFFF)
#define E_ACCESSDENIED ((HRESULT)0x80070005)
#define E_HANDLE ((HRESULT)0x80070006)
#define E_OUTOFMEMORY ((HRESULT)0x8007000E)
#define E_INVALIDARG ((HRESULT)0x80070057)
#define CLASS_E_NOAGGREGATION ((HRESULT)0x80040110)
#define CLASS_E_CLASSNOTAVAILABLE ((HRESULT)0x80040111)
/* HRESULT_FROM_WIN32(ERROR_INSUFFICIENT_BUFFER) */
#define SXS_E_INSUFFICIENT_BUFFER ((HRESULT)0x8007007A)
/* HRESULT_FROM_WIN32(ERROR_MOD_NOT_FOUND): a library that could not be loaded */
#define SXS_E_MOD_NOT_FOUND ((HRESULT)0x8007007E)
#define HOST_E_INVALIDOPERATION ((HRESULT)0x80131022)

/* Exceptions' HRESULTs the runtime answers with (corerror.h; the first three are Win32 errors). */
#define COR_E_FILENOTFOUND ((HRESULT)0x80070002)
#define COR_E_DIRECTORYNOTFOUND ((HRESULT)0x80070003)
#define COR_E_BADIMAGEFORMAT ((HRESULT)0x8007000B)
#define COR_E_TIMEOUT ((HRESULT)0x80131505)
#define COR_E_NOTSUPPORTED ((HRESULT)0x80131515)

/* The diagnostics server's answers to a request it cannot serve (diagnostics IPC protocol). */
#define CORDIAGIPC_E_BAD_ENCODING ((HRESULT)0x80131384)
#define CORDIAGIPC_E_UNKNOWN_COMMAND ((HRESULT)0x80131385)
#define CORDIAGIPC_E_UNKNOWN_MAGIC ((HRESULT)0x80131386)
#define CORDIAGIPC_E_UNKNOWN_ERROR ((HRESULT)0x80131387)

#define CORPROF_E_FUNCTION_NOT_COMPILED ((HRESULT)0x80131350)
#define CORPROF_E_DATAINCOMPLETE ((HRESULT)0x80131351)
#define CORPROF_E_FUNCTION_NOT_IL ((HRESULT)0x80131354)
#define CORPROF_E_NOT_MANAGED_THREAD ((HRESULT)0x80131355)
#define CORPROF_E_CALL_ONLY_FROM_INIT ((HRESULT)0x80131356)
#define CORPROF_E_NOT_YET_AVAILABLE ((HRESULT)0x8013135B)
#define CORPROF_E_TYPE_IS_PARAMETERIZED ((HRESULT)0x8013135C)
#define CORPROF_E_FUNCTION_IS_PARAMETERIZED ((HRESULT)0x8013135D)
#define CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD ((HRESULT)0x8013135E)
#define CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX ((HRESULT)0x8013135F)
#define CORPROF_E_STACKSNAPSHOT_UNSAFE ((HRESULT)0x80131360)
#define CORPROF_E_STACKSNAPSHOT_ABORTED ((HRESULT)0x80131361)
#define CORPROF_E_LITERALS_HAVE_NO_ADDRESS ((HRESULT)0x80131362)
#define CORPROF_E_UNSUPPORTED_CALL_SEQUENCE ((HRESULT)0x80131363)
#define CORPROF_E_ASYNCHRONOUS_UNSAFE ((HRESULT)0x80131364)
#define CORPROF_E_CLASSID_IS_ARRAY ((HRESULT)0x80131365)
#define CORPROF_E_CLASSID_IS_COMPOSITE ((HRESULT)0x80131366)
#define CORPROF_E_PROFILER_DETACHING ((HRESULT)0x80131367)
#define CORPROF_E_PROFILER_NOT_ATTACHABLE ((HRESULT)0x80131368)
#define CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT ((HRESULT)0x80131369)
#define CORPROF_E_PROFILER_ALREADY_ACTIVE ((HRESULT)0x8013136A)
#define CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER ((HRESULT)0x8013136B)
#define CORPROF_E_IPC_FAILED ((HRESULT)0x8013136C)
#define CORPROF_E_PROFILEE_PROCESS_NOT_FOUND ((HRESULT)0x8013136D)
#define CORPROF_E_CALLBACK3_REQUIRED ((HRESULT)0x8013136E)
#define CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER ((HRESULT)0x8013136F)
#define CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT ((HRESULT)0x80131370)
#define CORPROF_E_RUNTIME_UNINITIALIZED ((HRESULT)0x80131371)
#define CORPROF_E_IMMUTABLE_FLAGS_SET ((HRESULT)0x80131372)
#define CORPROF_E_PROFILER_NOT_YET_INITIALIZED ((HRESULT)0x80131373)
#define CORPROF_E_INCONSISTENT_WITH_FLAGS ((HRESULT)0x80131374)
#define CORPROF_E_PROFILER_CANCEL_ACTIVATION ((HRESULT)0x80131375)
#define CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE ((HRESULT)0x80131376)
#define CORPROF_E_DEBUGGING_DISABLED ((HRESULT)0x80131378)
#define CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC ((HRESULT)0x80131379)
#define CORPROF_E_MODULE_IS_DYNAMIC ((HRESULT)0x8013137A)
#define CORPROF_E_CALLBACK4_REQUIRED ((HRESULT)0x8013137B)
#define CORPROF_E_REJIT_NOT_ENABLED ((HRESULT)0x8013137C)
#define CORPROF_E_FUNCTION_IS_COLLECTIBLE ((HRESULT)0x8013137E)
#define CORPROF_E_CALLBACK6_REQUIRED ((HRESULT)0x80131380)
#define CORPROF_E_CALLBACK7_REQUIRED ((HRESULT)0x80131382)
#define CORPROF_E_REJIT_INLINING_DISABLED ((HRESULT)0x80131383)
#define CORPROF_E_SUSPENSION_IN_PROGRESS ((HRESULT)0x80131388)
#define CORPROF_E_NOT_GC_OBJECT ((HRESULT)0x80131389)

/* ------------------------------------------------------------------------------------------ *
 * AMD64 CONTEXT as the PAL lays it out (for DoStackSnapshot seeds and per-frame contexts).
 * The first SXS_CONTEXT_SIZE_CLASSIC bytes are stable across runtimes; newer PALs append AVX
 * and AVX-512 state, so a seed buffer should be SXS_CONTEXT_SIZE_MAX bytes, 16-byte aligned.
 * ------------------------------------------------------------------------------------------ */

#define SXS_CONTEXT_FLAGS_OFFSET 0x30
#define SXS_CONTEXT_RAX_OFFSET 0x78
#define SXS_CONTEXT_RCX_OFFSET 0x80
#define SXS_CONTEXT_RDX_OFFSET 0x88
#define SXS_CONTEXT_RBX_OFFSET 0x90
#define SXS_CONTEXT_RSP_OFFSET 0x98
#define SXS_CONTEXT_RBP_OFFSET 0xA0
#define SXS_CONTEXT_RSI_OFFSET 0xA8
#define SXS_CONTEXT_RDI_OFFSET 0xB0
#define SXS_CONTEXT_R8_OFFSET 0xB8
#define SXS_CONTEXT_R9_OFFSET 0xC0
#define SXS_CONTEXT_R10_OFFSET 0xC8
#define SXS_CONTEXT_R11_OFFSET 0xD0
#define SXS_CONTEXT_R12_OFFSET 0xD8
#define SXS_CONTEXT_R13_OFFSET 0xE0
#define SXS_CONTEXT_R14_OFFSET 0xE8
#define SXS_CONTEXT_R15_OFFSET 0xF0
#define SXS_CONTEXT_RIP_OFFSET 0xF8
#define SXS_CONTEXT_FLTSAVE_OFFSET 0x100
#define SXS_CONTEXT_SIZE_CLASSIC 1232 /* 0x4D0: up to and including FltSave and vector regs */
#define SXS_CONTEXT_SIZE_AVX 1504     /* + XState mask and Ymm0H-15H */
#define SXS_CONTEXT_SIZE_MAX 3104     /* 0xC20: + KMask0-7, Zmm0H-15H, Zmm16-31 (newest PAL) */
#define SXS_CONTEXT_ALIGN 16

#define SXS_CONTEXT_AMD64 ((DWORD)0x00100000u)
#define SXS_CONTEXT_CONTROL ((DWORD)0x00100001u)
#define SXS_CONTEXT_INTEGER ((DWORD)0x00100002u)
#define SXS_CONTEXT_SEGMENTS ((DWORD)0x00100004u)
#define SXS_CONTEXT_FLOATING_POINT ((DWORD)0x00100008u)
#define SXS_CONTEXT_DEBUG_REGISTERS ((DWORD)0x00100010u)
#define SXS_CONTEXT_FULL ((DWORD)0x0010000Bu)
#define SXS_CONTEXT_XSTATE ((DWORD)0x00100040u)

/* ------------------------------------------------------------------------------------------ *
 * Function types passed to and from the runtime (all plain System V functions)
 * ------------------------------------------------------------------------------------------ */

typedef UINT_PTR FunctionIDMapper(FunctionID funcId, BOOL *pbHookFunction);
typedef UINT_PTR FunctionIDMapper2(FunctionID funcId, void *clientData, BOOL *pbHookFunction);

/* ELT1 (deprecated in V2). */
typedef void FunctionEnter(FunctionID funcID);
typedef void FunctionLeave(FunctionID funcID);
typedef void FunctionTailcall(FunctionID funcID);

/* ELT2 (deprecated in V4). */
typedef void FunctionEnter2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_INFO *argumentInfo);
typedef void FunctionLeave2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_RANGE *retvalRange);
typedef void FunctionTailcall2(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);

/* ELT3. The fast-path (no info) hooks are called from the JIT'd prolog with live argument
 * registers and the ID in R14, so they must be assembly trampolines, not these C types. */
typedef void FunctionEnter3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionLeave3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionTailcall3(FunctionIDOrClientID functionIDOrClientID);
typedef void FunctionEnter3WithInfo(FunctionIDOrClientID functionIDOrClientID,
                                    COR_PRF_ELT_INFO eltInfo);
typedef void FunctionLeave3WithInfo(FunctionIDOrClientID functionIDOrClientID,
                                    COR_PRF_ELT_INFO eltInfo);
typedef void FunctionTailcall3WithInfo(FunctionIDOrClientID functionIDOrClientID,
                                       COR_PRF_ELT_INFO eltInfo);

/* Called once per managed frame (funcId != 0) or run of native frames (funcId == 0).
 * Returning anything but S_OK stops the walk (DoStackSnapshot then returns
 * CORPROF_E_STACKSNAPSHOT_ABORTED). context is NULL unless COR_PRF_SNAPSHOT_REGISTER_CONTEXT. */
typedef HRESULT StackSnapshotCallback(FunctionID funcId, UINT_PTR ip,
                                      COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize,
                                      BYTE context[], void *clientData);

typedef BOOL ObjectReferenceCallback(ObjectID root, ObjectID *reference, void *clientData);
typedef BOOL (*ObjectCallback)(ObjectID object, void *callbackState);
typedef void EventPipeProviderCallback(const UINT8 *source_id, UINT32 is_enabled, UINT8 level,
                                       UINT64 match_any_keywords, UINT64 match_all_keywords,
                                       COR_PRF_FILTER_DATA *filter_data, void *callback_data);

/* ------------------------------------------------------------------------------------------ *
 * Interface identifiers (defined in sxs_cor.c)
 * ------------------------------------------------------------------------------------------ */

extern const GUID IID_IUnknown;
extern const GUID IID_IClassFactory;
extern const GUID IID_ICorProfilerCallback;
extern const GUID IID_ICorProfilerCallback2;
extern const GUID IID_ICorProfilerCallback3;
extern const GUID IID_ICorProfilerCallback4;
extern const GUID IID_ICorProfilerCallback5;
extern const GUID IID_ICorProfilerCallback6;
extern const GUID IID_ICorProfilerCallback7;
extern const GUID IID_ICorProfilerCallback8;
extern const GUID IID_ICorProfilerCallback9;
extern const GUID IID_ICorProfilerCallback10;
extern const GUID IID_ICorProfilerCallback11;
extern const GUID IID_ICorProfilerInfo;
extern const GUID IID_ICorProfilerInfo2;
extern const GUID IID_ICorProfilerInfo3;
extern const GUID IID_ICorProfilerInfo4;
extern const GUID IID_ICorProfilerInfo5;
extern const GUID IID_ICorProfilerInfo6;
extern const GUID IID_ICorProfilerInfo7;
extern const GUID IID_ICorProfilerInfo8;
extern const GUID IID_ICorProfilerInfo9;
extern const GUID IID_ICorProfilerInfo10;
extern const GUID IID_ICorProfilerInfo11;
extern const GUID IID_ICorProfilerInfo12;
extern const GUID IID_ICorProfilerInfo13;
extern const GUID IID_ICorProfilerInfo14;
extern const GUID IID_ICorProfilerInfo15;
extern const GUID IID_ICorProfilerObjectEnum;
extern const GUID IID_ICorProfilerFunctionEnum;
extern const GUID IID_ICorProfilerModuleEnum;
extern const GUID IID_ICorProfilerMethodEnum;
extern const GUID IID_ICorProfilerThreadEnum;
extern const GUID IID_IMethodMalloc;
extern const GUID IID_ICorProfilerFunctionControl;
extern const GUID IID_ICorProfilerAssemblyReferenceProvider;
extern const GUID IID_IMetaDataImport;
extern const GUID IID_IMetaDataImport2;

/* Our class: the value of CORECLR_PROFILER. */
extern const GUID CLSID_SxsProfiler;

/* Byte-wise comparison of two GUIDs. Context: any thread; async-signal-safe. */
static inline bool sxs_guid_equal(const GUID *a, const GUID *b) {
    return memcmp(a, b, sizeof(GUID)) == 0;
}

/* ------------------------------------------------------------------------------------------ *
 * IUnknown, IClassFactory
 * ------------------------------------------------------------------------------------------ */

typedef struct IUnknown IUnknown;
typedef struct IUnknownVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IUnknown *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IUnknown *This);
    /* 2 */ ULONG (*Release)(IUnknown *This);
} IUnknownVtbl;
struct IUnknown {
    const IUnknownVtbl *lpVtbl;
};

typedef struct IClassFactory IClassFactory;
typedef struct IClassFactoryVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IClassFactory *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IClassFactory *This);
    /* 2 */ ULONG (*Release)(IClassFactory *This);
    /* 3 */ HRESULT (*CreateInstance)(IClassFactory *This, IUnknown *pUnkOuter, REFIID riid,
                                      void **ppvObject);
    /* 4 */ HRESULT (*LockServer)(IClassFactory *This, BOOL fLock);
} IClassFactoryVtbl;
struct IClassFactory {
    const IClassFactoryVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------------------------ *
 * Enumerators and small helper interfaces handed out by the runtime
 * ------------------------------------------------------------------------------------------ */

typedef struct ICorProfilerObjectEnum ICorProfilerObjectEnum;
typedef struct ICorProfilerObjectEnumVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerObjectEnum *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerObjectEnum *This);
    /* 2 */ ULONG (*Release)(ICorProfilerObjectEnum *This);
    /* 3 */ HRESULT (*Skip)(ICorProfilerObjectEnum *This, ULONG celt);
    /* 4 */ HRESULT (*Reset)(ICorProfilerObjectEnum *This);
    /* 5 */ HRESULT (*Clone)(ICorProfilerObjectEnum *This, ICorProfilerObjectEnum **ppEnum);
    /* 6 */ HRESULT (*GetCount)(ICorProfilerObjectEnum *This, ULONG *pcelt);
    /* 7 */ HRESULT (*Next)(ICorProfilerObjectEnum *This, ULONG celt, ObjectID objects[],
                            ULONG *pceltFetched);
} ICorProfilerObjectEnumVtbl;
struct ICorProfilerObjectEnum {
    const ICorProfilerObjectEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionEnum ICorProfilerFunctionEnum;
typedef struct ICorProfilerFunctionEnumVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerFunctionEnum *This, REFIID riid,
                                      void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerFunctionEnum *This);
    /* 2 */ ULONG (*Release)(ICorProfilerFunctionEnum *This);
    /* 3 */ HRESULT (*Skip)(ICorProfilerFunctionEnum *This, ULONG celt);
    /* 4 */ HRESULT (*Reset)(ICorProfilerFunctionEnum *This);
    /* 5 */ HRESULT (*Clone)(ICorProfilerFunctionEnum *This, ICorProfilerFunctionEnum **ppEnum);
    /* 6 */ HRESULT (*GetCount)(ICorProfilerFunctionEnum *This, ULONG *pcelt);
    /* 7 */ HRESULT (*Next)(ICorProfilerFunctionEnum *This, ULONG celt, COR_PRF_FUNCTION ids[],
                            ULONG *pceltFetched);
} ICorProfilerFunctionEnumVtbl;
struct ICorProfilerFunctionEnum {
    const ICorProfilerFunctionEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerModuleEnum ICorProfilerModuleEnum;
typedef struct ICorProfilerModuleEnumVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerModuleEnum *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerModuleEnum *This);
    /* 2 */ ULONG (*Release)(ICorProfilerModuleEnum *This);
    /* 3 */ HRESULT (*Skip)(ICorProfilerModuleEnum *This, ULONG celt);
    /* 4 */ HRESULT (*Reset)(ICorProfilerModuleEnum *This);
    /* 5 */ HRESULT (*Clone)(ICorProfilerModuleEnum *This, ICorProfilerModuleEnum **ppEnum);
    /* 6 */ HRESULT (*GetCount)(ICorProfilerModuleEnum *This, ULONG *pcelt);
    /* 7 */ HRESULT (*Next)(ICorProfilerModuleEnum *This, ULONG celt, ModuleID ids[],
                            ULONG *pceltFetched);
} ICorProfilerModuleEnumVtbl;
struct ICorProfilerModuleEnum {
    const ICorProfilerModuleEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerMethodEnum ICorProfilerMethodEnum;
typedef struct ICorProfilerMethodEnumVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerMethodEnum *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerMethodEnum *This);
    /* 2 */ ULONG (*Release)(ICorProfilerMethodEnum *This);
    /* 3 */ HRESULT (*Skip)(ICorProfilerMethodEnum *This, ULONG celt);
    /* 4 */ HRESULT (*Reset)(ICorProfilerMethodEnum *This);
    /* 5 */ HRESULT (*Clone)(ICorProfilerMethodEnum *This, ICorProfilerMethodEnum **ppEnum);
    /* 6 */ HRESULT (*GetCount)(ICorProfilerMethodEnum *This, ULONG *pcelt);
    /* 7 */ HRESULT (*Next)(ICorProfilerMethodEnum *This, ULONG celt, COR_PRF_METHOD elements[],
                            ULONG *pceltFetched);
} ICorProfilerMethodEnumVtbl;
struct ICorProfilerMethodEnum {
    const ICorProfilerMethodEnumVtbl *lpVtbl;
};

typedef struct ICorProfilerThreadEnum ICorProfilerThreadEnum;
typedef struct ICorProfilerThreadEnumVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerThreadEnum *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerThreadEnum *This);
    /* 2 */ ULONG (*Release)(ICorProfilerThreadEnum *This);
    /* 3 */ HRESULT (*Skip)(ICorProfilerThreadEnum *This, ULONG celt);
    /* 4 */ HRESULT (*Reset)(ICorProfilerThreadEnum *This);
    /* 5 */ HRESULT (*Clone)(ICorProfilerThreadEnum *This, ICorProfilerThreadEnum **ppEnum);
    /* 6 */ HRESULT (*GetCount)(ICorProfilerThreadEnum *This, ULONG *pcelt);
    /* 7 */ HRESULT (*Next)(ICorProfilerThreadEnum *This, ULONG celt, ThreadID ids[],
                            ULONG *pceltFetched);
} ICorProfilerThreadEnumVtbl;
struct ICorProfilerThreadEnum {
    const ICorProfilerThreadEnumVtbl *lpVtbl;
};

typedef struct IMethodMalloc IMethodMalloc;
typedef struct IMethodMallocVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IMethodMalloc *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IMethodMalloc *This);
    /* 2 */ ULONG (*Release)(IMethodMalloc *This);
    /* 3 */ PVOID (*Alloc)(IMethodMalloc *This, ULONG cb);
} IMethodMallocVtbl;
struct IMethodMalloc {
    const IMethodMallocVtbl *lpVtbl;
};

typedef struct ICorProfilerFunctionControl ICorProfilerFunctionControl;
typedef struct ICorProfilerFunctionControlVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerFunctionControl *This, REFIID riid,
                                      void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerFunctionControl *This);
    /* 2 */ ULONG (*Release)(ICorProfilerFunctionControl *This);
    /* 3 */ HRESULT (*SetCodegenFlags)(ICorProfilerFunctionControl *This, DWORD flags);
    /* 4 */ HRESULT (*SetILFunctionBody)(ICorProfilerFunctionControl *This,
                                         ULONG cbNewILMethodHeader, LPCBYTE pbNewILMethodHeader);
    /* 5 */ HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerFunctionControl *This,
                                                ULONG cILMapEntries, COR_IL_MAP rgILMapEntries[]);
} ICorProfilerFunctionControlVtbl;
struct ICorProfilerFunctionControl {
    const ICorProfilerFunctionControlVtbl *lpVtbl;
};

typedef struct ICorProfilerAssemblyReferenceProvider ICorProfilerAssemblyReferenceProvider;
typedef struct ICorProfilerAssemblyReferenceProviderVtbl {
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerAssemblyReferenceProvider *This, REFIID riid,
                                      void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerAssemblyReferenceProvider *This);
    /* 2 */ ULONG (*Release)(ICorProfilerAssemblyReferenceProvider *This);
    /* 3 */ HRESULT (*AddAssemblyReference)(
        ICorProfilerAssemblyReferenceProvider *This,
        const COR_PRF_ASSEMBLY_REFERENCE_INFO *pAssemblyRefInfo);
} ICorProfilerAssemblyReferenceProviderVtbl;
struct ICorProfilerAssemblyReferenceProvider {
    const ICorProfilerAssemblyReferenceProviderVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------------------------ *
 * ICorProfilerCallback .. ICorProfilerCallback11: one vtable, slots 0-97.
 * Implemented by us, called by the runtime.
 * ------------------------------------------------------------------------------------------ */

typedef struct ICorProfilerCallback11 ICorProfilerCallback11;
typedef ICorProfilerCallback11 ICorProfilerCallback;
typedef ICorProfilerCallback11 ICorProfilerCallback2;
typedef ICorProfilerCallback11 ICorProfilerCallback3;
typedef ICorProfilerCallback11 ICorProfilerCallback4;
typedef ICorProfilerCallback11 ICorProfilerCallback5;
typedef ICorProfilerCallback11 ICorProfilerCallback6;
typedef ICorProfilerCallback11 ICorProfilerCallback7;
typedef ICorProfilerCallback11 ICorProfilerCallback8;
typedef ICorProfilerCallback11 ICorProfilerCallback9;
typedef ICorProfilerCallback11 ICorProfilerCallback10;

typedef struct ICorProfilerCallback11Vtbl {
    /* IUnknown */
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerCallback11 *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerCallback11 *This);
    /* 2 */ ULONG (*Release)(ICorProfilerCallback11 *This);

    /* ICorProfilerCallback */
    /* 3 */ HRESULT (*Initialize)(ICorProfilerCallback11 *This, IUnknown *pICorProfilerInfoUnk);
    /* 4 */ HRESULT (*Shutdown)(ICorProfilerCallback11 *This);
    /* 5 */ HRESULT (*AppDomainCreationStarted)(ICorProfilerCallback11 *This,
                                                AppDomainID appDomainId);
    /* 6 */ HRESULT (*AppDomainCreationFinished)(ICorProfilerCallback11 *This,
                                                 AppDomainID appDomainId, HRESULT hrStatus);
    /* 7 */ HRESULT (*AppDomainShutdownStarted)(ICorProfilerCallback11 *This,
                                                AppDomainID appDomainId);
    /* 8 */ HRESULT (*AppDomainShutdownFinished)(ICorProfilerCallback11 *This,
                                                 AppDomainID appDomainId, HRESULT hrStatus);
    /* 9 */ HRESULT (*AssemblyLoadStarted)(ICorProfilerCallback11 *This, AssemblyID assemblyId);
    /* 10 */ HRESULT (*AssemblyLoadFinished)(ICorProfilerCallback11 *This, AssemblyID assemblyId,
                                             HRESULT hrStatus);
    /* 11 */ HRESULT (*AssemblyUnloadStarted)(ICorProfilerCallback11 *This, AssemblyID assemblyId);
    /* 12 */ HRESULT (*AssemblyUnloadFinished)(ICorProfilerCallback11 *This,
                                               AssemblyID assemblyId, HRESULT hrStatus);
    /* 13 */ HRESULT (*ModuleLoadStarted)(ICorProfilerCallback11 *This, ModuleID moduleId);
    /* 14 */ HRESULT (*ModuleLoadFinished)(ICorProfilerCallback11 *This, ModuleID moduleId,
                                           HRESULT hrStatus);
    /* 15 */ HRESULT (*ModuleUnloadStarted)(ICorProfilerCallback11 *This, ModuleID moduleId);
    /* 16 */ HRESULT (*ModuleUnloadFinished)(ICorProfilerCallback11 *This, ModuleID moduleId,
                                             HRESULT hrStatus);
    /* 17 */ HRESULT (*ModuleAttachedToAssembly)(ICorProfilerCallback11 *This, ModuleID moduleId,
                                                 AssemblyID AssemblyId);
    /* 18 */ HRESULT (*ClassLoadStarted)(ICorProfilerCallback11 *This, ClassID classId);
    /* 19 */ HRESULT (*ClassLoadFinished)(ICorProfilerCallback11 *This, ClassID classId,
                                          HRESULT hrStatus);
    /* 20 */ HRESULT (*ClassUnloadStarted)(ICorProfilerCallback11 *This, ClassID classId);
    /* 21 */ HRESULT (*ClassUnloadFinished)(ICorProfilerCallback11 *This, ClassID classId,
                                            HRESULT hrStatus);
    /* 22 */ HRESULT (*FunctionUnloadStarted)(ICorProfilerCallback11 *This, FunctionID functionId);
    /* 23 */ HRESULT (*JITCompilationStarted)(ICorProfilerCallback11 *This, FunctionID functionId,
                                              BOOL fIsSafeToBlock);
    /* 24 */ HRESULT (*JITCompilationFinished)(ICorProfilerCallback11 *This,
                                               FunctionID functionId, HRESULT hrStatus,
                                               BOOL fIsSafeToBlock);
    /* 25 */ HRESULT (*JITCachedFunctionSearchStarted)(ICorProfilerCallback11 *This,
                                                       FunctionID functionId,
                                                       BOOL *pbUseCachedFunction);
    /* 26 */ HRESULT (*JITCachedFunctionSearchFinished)(ICorProfilerCallback11 *This,
                                                        FunctionID functionId,
                                                        COR_PRF_JIT_CACHE result);
    /* 27 */ HRESULT (*JITFunctionPitched)(ICorProfilerCallback11 *This, FunctionID functionId);
    /* 28 */ HRESULT (*JITInlining)(ICorProfilerCallback11 *This, FunctionID callerId,
                                    FunctionID calleeId, BOOL *pfShouldInline);
    /* 29 */ HRESULT (*ThreadCreated)(ICorProfilerCallback11 *This, ThreadID threadId);
    /* 30 */ HRESULT (*ThreadDestroyed)(ICorProfilerCallback11 *This, ThreadID threadId);
    /* 31 */ HRESULT (*ThreadAssignedToOSThread)(ICorProfilerCallback11 *This,
                                                 ThreadID managedThreadId, DWORD osThreadId);
    /* 32 */ HRESULT (*RemotingClientInvocationStarted)(ICorProfilerCallback11 *This);
    /* 33 */ HRESULT (*RemotingClientSendingMessage)(ICorProfilerCallback11 *This, GUID *pCookie,
                                                     BOOL fIsAsync);
    /* 34 */ HRESULT (*RemotingClientReceivingReply)(ICorProfilerCallback11 *This, GUID *pCookie,
                                                     BOOL fIsAsync);
    /* 35 */ HRESULT (*RemotingClientInvocationFinished)(ICorProfilerCallback11 *This);
    /* 36 */ HRESULT (*RemotingServerReceivingMessage)(ICorProfilerCallback11 *This,
                                                       GUID *pCookie, BOOL fIsAsync);
    /* 37 */ HRESULT (*RemotingServerInvocationStarted)(ICorProfilerCallback11 *This);
    /* 38 */ HRESULT (*RemotingServerInvocationReturned)(ICorProfilerCallback11 *This);
    /* 39 */ HRESULT (*RemotingServerSendingReply)(ICorProfilerCallback11 *This, GUID *pCookie,
                                                   BOOL fIsAsync);
    /* 40 */ HRESULT (*UnmanagedToManagedTransition)(ICorProfilerCallback11 *This,
                                                     FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason);
    /* 41 */ HRESULT (*ManagedToUnmanagedTransition)(ICorProfilerCallback11 *This,
                                                     FunctionID functionId,
                                                     COR_PRF_TRANSITION_REASON reason);
    /* 42 */ HRESULT (*RuntimeSuspendStarted)(ICorProfilerCallback11 *This,
                                              COR_PRF_SUSPEND_REASON suspendReason);
    /* 43 */ HRESULT (*RuntimeSuspendFinished)(ICorProfilerCallback11 *This);
    /* 44 */ HRESULT (*RuntimeSuspendAborted)(ICorProfilerCallback11 *This);
    /* 45 */ HRESULT (*RuntimeResumeStarted)(ICorProfilerCallback11 *This);
    /* 46 */ HRESULT (*RuntimeResumeFinished)(ICorProfilerCallback11 *This);
    /* 47 */ HRESULT (*RuntimeThreadSuspended)(ICorProfilerCallback11 *This, ThreadID threadId);
    /* 48 */ HRESULT (*RuntimeThreadResumed)(ICorProfilerCallback11 *This, ThreadID threadId);
    /* 49 */ HRESULT (*MovedReferences)(ICorProfilerCallback11 *This, ULONG cMovedObjectIDRanges,
                                        ObjectID oldObjectIDRangeStart[],
                                        ObjectID newObjectIDRangeStart[],
                                        ULONG cObjectIDRangeLength[]);
    /* 50 */ HRESULT (*ObjectAllocated)(ICorProfilerCallback11 *This, ObjectID objectId,
                                        ClassID classId);
    /* 51 */ HRESULT (*ObjectsAllocatedByClass)(ICorProfilerCallback11 *This, ULONG cClassCount,
                                                ClassID classIds[], ULONG cObjects[]);
    /* 52 */ HRESULT (*ObjectReferences)(ICorProfilerCallback11 *This, ObjectID objectId,
                                         ClassID classId, ULONG cObjectRefs,
                                         ObjectID objectRefIds[]);
    /* 53 */ HRESULT (*RootReferences)(ICorProfilerCallback11 *This, ULONG cRootRefs,
                                       ObjectID rootRefIds[]);
    /* 54 */ HRESULT (*ExceptionThrown)(ICorProfilerCallback11 *This, ObjectID thrownObjectId);
    /* 55 */ HRESULT (*ExceptionSearchFunctionEnter)(ICorProfilerCallback11 *This,
                                                     FunctionID functionId);
    /* 56 */ HRESULT (*ExceptionSearchFunctionLeave)(ICorProfilerCallback11 *This);
    /* 57 */ HRESULT (*ExceptionSearchFilterEnter)(ICorProfilerCallback11 *This,
                                                   FunctionID functionId);
    /* 58 */ HRESULT (*ExceptionSearchFilterLeave)(ICorProfilerCallback11 *This);
    /* 59 */ HRESULT (*ExceptionSearchCatcherFound)(ICorProfilerCallback11 *This,
                                                    FunctionID functionId);
    /* 60 */ HRESULT (*ExceptionOSHandlerEnter)(ICorProfilerCallback11 *This, UINT_PTR unused);
    /* 61 */ HRESULT (*ExceptionOSHandlerLeave)(ICorProfilerCallback11 *This, UINT_PTR unused);
    /* 62 */ HRESULT (*ExceptionUnwindFunctionEnter)(ICorProfilerCallback11 *This,
                                                     FunctionID functionId);
    /* 63 */ HRESULT (*ExceptionUnwindFunctionLeave)(ICorProfilerCallback11 *This);
    /* 64 */ HRESULT (*ExceptionUnwindFinallyEnter)(ICorProfilerCallback11 *This,
                                                    FunctionID functionId);
    /* 65 */ HRESULT (*ExceptionUnwindFinallyLeave)(ICorProfilerCallback11 *This);
    /* 66 */ HRESULT (*ExceptionCatcherEnter)(ICorProfilerCallback11 *This, FunctionID functionId,
                                              ObjectID objectId);
    /* 67 */ HRESULT (*ExceptionCatcherLeave)(ICorProfilerCallback11 *This);
    /* 68 */ HRESULT (*COMClassicVTableCreated)(ICorProfilerCallback11 *This,
                                                ClassID wrappedClassId, REFGUID implementedIID,
                                                void *pVTable, ULONG cSlots);
    /* 69 */ HRESULT (*COMClassicVTableDestroyed)(ICorProfilerCallback11 *This,
                                                  ClassID wrappedClassId, REFGUID implementedIID,
                                                  void *pVTable);
    /* 70 */ HRESULT (*ExceptionCLRCatcherFound)(ICorProfilerCallback11 *This);
    /* 71 */ HRESULT (*ExceptionCLRCatcherExecute)(ICorProfilerCallback11 *This);

    /* ICorProfilerCallback2 */
    /* 72 */ HRESULT (*ThreadNameChanged)(ICorProfilerCallback11 *This, ThreadID threadId,
                                          ULONG cchName, WCHAR name[]);
    /* 73 */ HRESULT (*GarbageCollectionStarted)(ICorProfilerCallback11 *This, int cGenerations,
                                                 BOOL generationCollected[],
                                                 COR_PRF_GC_REASON reason);
    /* 74 */ HRESULT (*SurvivingReferences)(ICorProfilerCallback11 *This,
                                            ULONG cSurvivingObjectIDRanges,
                                            ObjectID objectIDRangeStart[],
                                            ULONG cObjectIDRangeLength[]);
    /* 75 */ HRESULT (*GarbageCollectionFinished)(ICorProfilerCallback11 *This);
    /* 76 */ HRESULT (*FinalizeableObjectQueued)(ICorProfilerCallback11 *This,
                                                 DWORD finalizerFlags, ObjectID objectID);
    /* 77 */ HRESULT (*RootReferences2)(ICorProfilerCallback11 *This, ULONG cRootRefs,
                                        ObjectID rootRefIds[], COR_PRF_GC_ROOT_KIND rootKinds[],
                                        COR_PRF_GC_ROOT_FLAGS rootFlags[], UINT_PTR rootIds[]);
    /* 78 */ HRESULT (*HandleCreated)(ICorProfilerCallback11 *This, GCHandleID handleId,
                                      ObjectID initialObjectId);
    /* 79 */ HRESULT (*HandleDestroyed)(ICorProfilerCallback11 *This, GCHandleID handleId);

    /* ICorProfilerCallback3 */
    /* 80 */ HRESULT (*InitializeForAttach)(ICorProfilerCallback11 *This,
                                            IUnknown *pCorProfilerInfoUnk, void *pvClientData,
                                            UINT cbClientData);
    /* 81 */ HRESULT (*ProfilerAttachComplete)(ICorProfilerCallback11 *This);
    /* 82 */ HRESULT (*ProfilerDetachSucceeded)(ICorProfilerCallback11 *This);

    /* ICorProfilerCallback4 */
    /* 83 */ HRESULT (*ReJITCompilationStarted)(ICorProfilerCallback11 *This,
                                                FunctionID functionId, ReJITID rejitId,
                                                BOOL fIsSafeToBlock);
    /* 84 */ HRESULT (*GetReJITParameters)(ICorProfilerCallback11 *This, ModuleID moduleId,
                                           mdMethodDef methodId,
                                           ICorProfilerFunctionControl *pFunctionControl);
    /* 85 */ HRESULT (*ReJITCompilationFinished)(ICorProfilerCallback11 *This,
                                                 FunctionID functionId, ReJITID rejitId,
                                                 HRESULT hrStatus, BOOL fIsSafeToBlock);
    /* 86 */ HRESULT (*ReJITError)(ICorProfilerCallback11 *This, ModuleID moduleId,
                                   mdMethodDef methodId, FunctionID functionId, HRESULT hrStatus);
    /* 87 */ HRESULT (*MovedReferences2)(ICorProfilerCallback11 *This,
                                         ULONG cMovedObjectIDRanges,
                                         ObjectID oldObjectIDRangeStart[],
                                         ObjectID newObjectIDRangeStart[],
                                         SIZE_T cObjectIDRangeLength[]);
    /* 88 */ HRESULT (*SurvivingReferences2)(ICorProfilerCallback11 *This,
                                             ULONG cSurvivingObjectIDRanges,
                                             ObjectID objectIDRangeStart[],
                                             SIZE_T cObjectIDRangeLength[]);

    /* ICorProfilerCallback5 */
    /* 89 */ HRESULT (*ConditionalWeakTableElementReferences)(ICorProfilerCallback11 *This,
                                                              ULONG cRootRefs,
                                                              ObjectID keyRefIds[],
                                                              ObjectID valueRefIds[],
                                                              GCHandleID rootIds[]);

    /* ICorProfilerCallback6 */
    /* 90 */ HRESULT (*GetAssemblyReferences)(
        ICorProfilerCallback11 *This, const WCHAR *wszAssemblyPath,
        ICorProfilerAssemblyReferenceProvider *pAsmRefProvider);

    /* ICorProfilerCallback7 */
    /* 91 */ HRESULT (*ModuleInMemorySymbolsUpdated)(ICorProfilerCallback11 *This,
                                                     ModuleID moduleId);

    /* ICorProfilerCallback8 */
    /* 92 */ HRESULT (*DynamicMethodJITCompilationStarted)(ICorProfilerCallback11 *This,
                                                           FunctionID functionId,
                                                           BOOL fIsSafeToBlock,
                                                           LPCBYTE pILHeader, ULONG cbILHeader);
    /* 93 */ HRESULT (*DynamicMethodJITCompilationFinished)(ICorProfilerCallback11 *This,
                                                            FunctionID functionId,
                                                            HRESULT hrStatus, BOOL fIsSafeToBlock);

    /* ICorProfilerCallback9 */
    /* 94 */ HRESULT (*DynamicMethodUnloaded)(ICorProfilerCallback11 *This, FunctionID functionId);

    /* ICorProfilerCallback10 */
    /* 95 */ HRESULT (*EventPipeEventDelivered)(ICorProfilerCallback11 *This,
                                                EVENTPIPE_PROVIDER provider, DWORD eventId,
                                                DWORD eventVersion, ULONG cbMetadataBlob,
                                                LPCBYTE metadataBlob, ULONG cbEventData,
                                                LPCBYTE eventData, LPCGUID pActivityId,
                                                LPCGUID pRelatedActivityId, ThreadID eventThread,
                                                ULONG numStackFrames, UINT_PTR stackFrames[]);
    /* 96 */ HRESULT (*EventPipeProviderCreated)(ICorProfilerCallback11 *This,
                                                 EVENTPIPE_PROVIDER provider);

    /* ICorProfilerCallback11 */
    /* 97 */ HRESULT (*LoadAsNotificationOnly)(ICorProfilerCallback11 *This,
                                               BOOL *pbNotificationOnly);
} ICorProfilerCallback11Vtbl;

struct ICorProfilerCallback11 {
    const ICorProfilerCallback11Vtbl *lpVtbl;
};

/* ------------------------------------------------------------------------------------------ *
 * ICorProfilerInfo .. ICorProfilerInfo15: one vtable, slots 0-114.
 * Implemented by the runtime, called by us.
 * ------------------------------------------------------------------------------------------ */

typedef struct ICorProfilerInfo15 ICorProfilerInfo15;
typedef ICorProfilerInfo15 ICorProfilerInfo;
typedef ICorProfilerInfo15 ICorProfilerInfo2;
typedef ICorProfilerInfo15 ICorProfilerInfo3;
typedef ICorProfilerInfo15 ICorProfilerInfo4;
typedef ICorProfilerInfo15 ICorProfilerInfo5;
typedef ICorProfilerInfo15 ICorProfilerInfo6;
typedef ICorProfilerInfo15 ICorProfilerInfo7;
typedef ICorProfilerInfo15 ICorProfilerInfo8;
typedef ICorProfilerInfo15 ICorProfilerInfo9;
typedef ICorProfilerInfo15 ICorProfilerInfo10;
typedef ICorProfilerInfo15 ICorProfilerInfo11;
typedef ICorProfilerInfo15 ICorProfilerInfo12;
typedef ICorProfilerInfo15 ICorProfilerInfo13;
typedef ICorProfilerInfo15 ICorProfilerInfo14;

typedef struct ICorProfilerInfo15Vtbl {
    /* IUnknown */
    /* 0 */ HRESULT (*QueryInterface)(ICorProfilerInfo15 *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(ICorProfilerInfo15 *This);
    /* 2 */ ULONG (*Release)(ICorProfilerInfo15 *This);

    /* ICorProfilerInfo */
    /* 3 */ HRESULT (*GetClassFromObject)(ICorProfilerInfo15 *This, ObjectID objectId,
                                          ClassID *pClassId);
    /* 4 */ HRESULT (*GetClassFromToken)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                         mdTypeDef typeDef, ClassID *pClassId);
    /* 5 */ HRESULT (*GetCodeInfo)(ICorProfilerInfo15 *This, FunctionID functionId,
                                   LPCBYTE *pStart, ULONG *pcSize);
    /* 6 */ HRESULT (*GetEventMask)(ICorProfilerInfo15 *This, DWORD *pdwEvents);
    /* 7 */ HRESULT (*GetFunctionFromIP)(ICorProfilerInfo15 *This, LPCBYTE ip,
                                         FunctionID *pFunctionId);
    /* 8 */ HRESULT (*GetFunctionFromToken)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                            mdToken token, FunctionID *pFunctionId);
    /* 9 */ HRESULT (*GetHandleFromThread)(ICorProfilerInfo15 *This, ThreadID threadId,
                                           HANDLE *phThread);
    /* 10 */ HRESULT (*GetObjectSize)(ICorProfilerInfo15 *This, ObjectID objectId, ULONG *pcSize);
    /* 11 */ HRESULT (*IsArrayClass)(ICorProfilerInfo15 *This, ClassID classId,
                                     CorElementType *pBaseElemType, ClassID *pBaseClassId,
                                     ULONG *pcRank);
    /* 12 */ HRESULT (*GetThreadInfo)(ICorProfilerInfo15 *This, ThreadID threadId,
                                      DWORD *pdwWin32ThreadId);
    /* 13 */ HRESULT (*GetCurrentThreadID)(ICorProfilerInfo15 *This, ThreadID *pThreadId);
    /* 14 */ HRESULT (*GetClassIDInfo)(ICorProfilerInfo15 *This, ClassID classId,
                                       ModuleID *pModuleId, mdTypeDef *pTypeDefToken);
    /* 15 */ HRESULT (*GetFunctionInfo)(ICorProfilerInfo15 *This, FunctionID functionId,
                                        ClassID *pClassId, ModuleID *pModuleId, mdToken *pToken);
    /* 16 */ HRESULT (*SetEventMask)(ICorProfilerInfo15 *This, DWORD dwEvents);
    /* 17 */ HRESULT (*SetEnterLeaveFunctionHooks)(ICorProfilerInfo15 *This,
                                                   FunctionEnter *pFuncEnter,
                                                   FunctionLeave *pFuncLeave,
                                                   FunctionTailcall *pFuncTailcall);
    /* 18 */ HRESULT (*SetFunctionIDMapper)(ICorProfilerInfo15 *This, FunctionIDMapper *pFunc);
    /* 19 */ HRESULT (*GetTokenAndMetaDataFromFunction)(ICorProfilerInfo15 *This,
                                                        FunctionID functionId, REFIID riid,
                                                        IUnknown **ppImport, mdToken *pToken);
    /* 20 */ HRESULT (*GetModuleInfo)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                      LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                      ULONG *pcchName, WCHAR szName[], AssemblyID *pAssemblyId);
    /* 21 */ HRESULT (*GetModuleMetaData)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                          DWORD dwOpenFlags, REFIID riid, IUnknown **ppOut);
    /* 22 */ HRESULT (*GetILFunctionBody)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                          mdMethodDef methodId, LPCBYTE *ppMethodHeader,
                                          ULONG *pcbMethodSize);
    /* 23 */ HRESULT (*GetILFunctionBodyAllocator)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                   IMethodMalloc **ppMalloc);
    /* 24 */ HRESULT (*SetILFunctionBody)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                          mdMethodDef methodid, LPCBYTE pbNewILMethodHeader);
    /* 25 */ HRESULT (*GetAppDomainInfo)(ICorProfilerInfo15 *This, AppDomainID appDomainId,
                                         ULONG cchName, ULONG *pcchName, WCHAR szName[],
                                         ProcessID *pProcessId);
    /* 26 */ HRESULT (*GetAssemblyInfo)(ICorProfilerInfo15 *This, AssemblyID assemblyId,
                                        ULONG cchName, ULONG *pcchName, WCHAR szName[],
                                        AppDomainID *pAppDomainId, ModuleID *pModuleId);
    /* 27 */ HRESULT (*SetFunctionReJIT)(ICorProfilerInfo15 *This, FunctionID functionId);
    /* 28 */ HRESULT (*ForceGC)(ICorProfilerInfo15 *This);
    /* 29 */ HRESULT (*SetILInstrumentedCodeMap)(ICorProfilerInfo15 *This, FunctionID functionId,
                                                 BOOL fStartJit, ULONG cILMapEntries,
                                                 COR_IL_MAP rgILMapEntries[]);
    /* 30 */ HRESULT (*GetInprocInspectionInterface)(ICorProfilerInfo15 *This, IUnknown **ppicd);
    /* 31 */ HRESULT (*GetInprocInspectionIThisThread)(ICorProfilerInfo15 *This,
                                                       IUnknown **ppicd);
    /* 32 */ HRESULT (*GetThreadContext)(ICorProfilerInfo15 *This, ThreadID threadId,
                                         ContextID *pContextId);
    /* 33 */ HRESULT (*BeginInprocDebugging)(ICorProfilerInfo15 *This, BOOL fThisThreadOnly,
                                             DWORD *pdwProfilerContext);
    /* 34 */ HRESULT (*EndInprocDebugging)(ICorProfilerInfo15 *This, DWORD dwProfilerContext);
    /* 35 */ HRESULT (*GetILToNativeMapping)(ICorProfilerInfo15 *This, FunctionID functionId,
                                             ULONG32 cMap, ULONG32 *pcMap,
                                             COR_DEBUG_IL_TO_NATIVE_MAP map[]);

    /* ICorProfilerInfo2 */
    /* 36 */ HRESULT (*DoStackSnapshot)(ICorProfilerInfo15 *This, ThreadID thread,
                                        StackSnapshotCallback *callback, ULONG32 infoFlags,
                                        void *clientData, BYTE context[], ULONG32 contextSize);
    /* 37 */ HRESULT (*SetEnterLeaveFunctionHooks2)(ICorProfilerInfo15 *This,
                                                    FunctionEnter2 *pFuncEnter,
                                                    FunctionLeave2 *pFuncLeave,
                                                    FunctionTailcall2 *pFuncTailcall);
    /* 38 */ HRESULT (*GetFunctionInfo2)(ICorProfilerInfo15 *This, FunctionID funcId,
                                         COR_PRF_FRAME_INFO frameInfo, ClassID *pClassId,
                                         ModuleID *pModuleId, mdToken *pToken, ULONG32 cTypeArgs,
                                         ULONG32 *pcTypeArgs, ClassID typeArgs[]);
    /* 39 */ HRESULT (*GetStringLayout)(ICorProfilerInfo15 *This, ULONG *pBufferLengthOffset,
                                        ULONG *pStringLengthOffset, ULONG *pBufferOffset);
    /* 40 */ HRESULT (*GetClassLayout)(ICorProfilerInfo15 *This, ClassID classID,
                                       COR_FIELD_OFFSET rFieldOffset[], ULONG cFieldOffset,
                                       ULONG *pcFieldOffset, ULONG *pulClassSize);
    /* 41 */ HRESULT (*GetClassIDInfo2)(ICorProfilerInfo15 *This, ClassID classId,
                                        ModuleID *pModuleId, mdTypeDef *pTypeDefToken,
                                        ClassID *pParentClassId, ULONG32 cNumTypeArgs,
                                        ULONG32 *pcNumTypeArgs, ClassID typeArgs[]);
    /* 42 */ HRESULT (*GetCodeInfo2)(ICorProfilerInfo15 *This, FunctionID functionID,
                                     ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                     COR_PRF_CODE_INFO codeInfos[]);
    /* 43 */ HRESULT (*GetClassFromTokenAndTypeArgs)(ICorProfilerInfo15 *This, ModuleID moduleID,
                                                     mdTypeDef typeDef, ULONG32 cTypeArgs,
                                                     ClassID typeArgs[], ClassID *pClassID);
    /* 44 */ HRESULT (*GetFunctionFromTokenAndTypeArgs)(ICorProfilerInfo15 *This,
                                                        ModuleID moduleID, mdMethodDef funcDef,
                                                        ClassID classId, ULONG32 cTypeArgs,
                                                        ClassID typeArgs[],
                                                        FunctionID *pFunctionID);
    /* 45 */ HRESULT (*EnumModuleFrozenObjects)(ICorProfilerInfo15 *This, ModuleID moduleID,
                                                ICorProfilerObjectEnum **ppEnum);
    /* 46 */ HRESULT (*GetArrayObjectInfo)(ICorProfilerInfo15 *This, ObjectID objectId,
                                           ULONG32 cDimensions, ULONG32 pDimensionSizes[],
                                           int pDimensionLowerBounds[], BYTE **ppData);
    /* 47 */ HRESULT (*GetBoxClassLayout)(ICorProfilerInfo15 *This, ClassID classId,
                                          ULONG32 *pBufferOffset);
    /* 48 */ HRESULT (*GetThreadAppDomain)(ICorProfilerInfo15 *This, ThreadID threadId,
                                           AppDomainID *pAppDomainId);
    /* 49 */ HRESULT (*GetRVAStaticAddress)(ICorProfilerInfo15 *This, ClassID classId,
                                            mdFieldDef fieldToken, void **ppAddress);
    /* 50 */ HRESULT (*GetAppDomainStaticAddress)(ICorProfilerInfo15 *This, ClassID classId,
                                                  mdFieldDef fieldToken, AppDomainID appDomainId,
                                                  void **ppAddress);
    /* 51 */ HRESULT (*GetThreadStaticAddress)(ICorProfilerInfo15 *This, ClassID classId,
                                               mdFieldDef fieldToken, ThreadID threadId,
                                               void **ppAddress);
    /* 52 */ HRESULT (*GetContextStaticAddress)(ICorProfilerInfo15 *This, ClassID classId,
                                                mdFieldDef fieldToken, ContextID contextId,
                                                void **ppAddress);
    /* 53 */ HRESULT (*GetStaticFieldInfo)(ICorProfilerInfo15 *This, ClassID classId,
                                           mdFieldDef fieldToken,
                                           COR_PRF_STATIC_TYPE *pFieldInfo);
    /* 54 */ HRESULT (*GetGenerationBounds)(ICorProfilerInfo15 *This, ULONG cObjectRanges,
                                            ULONG *pcObjectRanges,
                                            COR_PRF_GC_GENERATION_RANGE ranges[]);
    /* 55 */ HRESULT (*GetObjectGeneration)(ICorProfilerInfo15 *This, ObjectID objectId,
                                            COR_PRF_GC_GENERATION_RANGE *range);
    /* 56 */ HRESULT (*GetNotifiedExceptionClauseInfo)(ICorProfilerInfo15 *This,
                                                       COR_PRF_EX_CLAUSE_INFO *pinfo);

    /* ICorProfilerInfo3 */
    /* 57 */ HRESULT (*EnumJITedFunctions)(ICorProfilerInfo15 *This,
                                           ICorProfilerFunctionEnum **ppEnum);
    /* 58 */ HRESULT (*RequestProfilerDetach)(ICorProfilerInfo15 *This,
                                              DWORD dwExpectedCompletionMilliseconds);
    /* 59 */ HRESULT (*SetFunctionIDMapper2)(ICorProfilerInfo15 *This, FunctionIDMapper2 *pFunc,
                                             void *clientData);
    /* 60 */ HRESULT (*GetStringLayout2)(ICorProfilerInfo15 *This, ULONG *pStringLengthOffset,
                                         ULONG *pBufferOffset);
    /* 61 */ HRESULT (*SetEnterLeaveFunctionHooks3)(ICorProfilerInfo15 *This,
                                                    FunctionEnter3 *pFuncEnter3,
                                                    FunctionLeave3 *pFuncLeave3,
                                                    FunctionTailcall3 *pFuncTailcall3);
    /* 62 */ HRESULT (*SetEnterLeaveFunctionHooks3WithInfo)(
        ICorProfilerInfo15 *This, FunctionEnter3WithInfo *pFuncEnter3WithInfo,
        FunctionLeave3WithInfo *pFuncLeave3WithInfo,
        FunctionTailcall3WithInfo *pFuncTailcall3WithInfo);
    /* 63 */ HRESULT (*GetFunctionEnter3Info)(ICorProfilerInfo15 *This, FunctionID functionId,
                                              COR_PRF_ELT_INFO eltInfo,
                                              COR_PRF_FRAME_INFO *pFrameInfo,
                                              ULONG *pcbArgumentInfo,
                                              COR_PRF_FUNCTION_ARGUMENT_INFO *pArgumentInfo);
    /* 64 */ HRESULT (*GetFunctionLeave3Info)(ICorProfilerInfo15 *This, FunctionID functionId,
                                              COR_PRF_ELT_INFO eltInfo,
                                              COR_PRF_FRAME_INFO *pFrameInfo,
                                              COR_PRF_FUNCTION_ARGUMENT_RANGE *pRetvalRange);
    /* 65 */ HRESULT (*GetFunctionTailcall3Info)(ICorProfilerInfo15 *This, FunctionID functionId,
                                                 COR_PRF_ELT_INFO eltInfo,
                                                 COR_PRF_FRAME_INFO *pFrameInfo);
    /* 66 */ HRESULT (*EnumModules)(ICorProfilerInfo15 *This, ICorProfilerModuleEnum **ppEnum);
    /* 67 */ HRESULT (*GetRuntimeInformation)(ICorProfilerInfo15 *This, USHORT *pClrInstanceId,
                                              COR_PRF_RUNTIME_TYPE *pRuntimeType,
                                              USHORT *pMajorVersion, USHORT *pMinorVersion,
                                              USHORT *pBuildNumber, USHORT *pQFEVersion,
                                              ULONG cchVersionString, ULONG *pcchVersionString,
                                              WCHAR szVersionString[]);
    /* 68 */ HRESULT (*GetThreadStaticAddress2)(ICorProfilerInfo15 *This, ClassID classId,
                                                mdFieldDef fieldToken, AppDomainID appDomainId,
                                                ThreadID threadId, void **ppAddress);
    /* 69 */ HRESULT (*GetAppDomainsContainingModule)(ICorProfilerInfo15 *This,
                                                      ModuleID moduleId, ULONG32 cAppDomainIds,
                                                      ULONG32 *pcAppDomainIds,
                                                      AppDomainID appDomainIds[]);
    /* 70 */ HRESULT (*GetModuleInfo2)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                       LPCBYTE *ppBaseLoadAddress, ULONG cchName,
                                       ULONG *pcchName, WCHAR szName[], AssemblyID *pAssemblyId,
                                       DWORD *pdwModuleFlags);

    /* ICorProfilerInfo4 */
    /* 71 */ HRESULT (*EnumThreads)(ICorProfilerInfo15 *This, ICorProfilerThreadEnum **ppEnum);
    /* 72 */ HRESULT (*InitializeCurrentThread)(ICorProfilerInfo15 *This);
    /* 73 */ HRESULT (*RequestReJIT)(ICorProfilerInfo15 *This, ULONG cFunctions,
                                     ModuleID moduleIds[], mdMethodDef methodIds[]);
    /* 74 */ HRESULT (*RequestRevert)(ICorProfilerInfo15 *This, ULONG cFunctions,
                                      ModuleID moduleIds[], mdMethodDef methodIds[],
                                      HRESULT status[]);
    /* 75 */ HRESULT (*GetCodeInfo3)(ICorProfilerInfo15 *This, FunctionID functionID,
                                     ReJITID reJitId, ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                     COR_PRF_CODE_INFO codeInfos[]);
    /* 76 */ HRESULT (*GetFunctionFromIP2)(ICorProfilerInfo15 *This, LPCBYTE ip,
                                           FunctionID *pFunctionId, ReJITID *pReJitId);
    /* 77 */ HRESULT (*GetReJITIDs)(ICorProfilerInfo15 *This, FunctionID functionId,
                                    ULONG cReJitIds, ULONG *pcReJitIds, ReJITID reJitIds[]);
    /* 78 */ HRESULT (*GetILToNativeMapping2)(ICorProfilerInfo15 *This, FunctionID functionId,
                                              ReJITID reJitId, ULONG32 cMap, ULONG32 *pcMap,
                                              COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    /* 79 */ HRESULT (*EnumJITedFunctions2)(ICorProfilerInfo15 *This,
                                            ICorProfilerFunctionEnum **ppEnum);
    /* 80 */ HRESULT (*GetObjectSize2)(ICorProfilerInfo15 *This, ObjectID objectId,
                                       SIZE_T *pcSize);

    /* ICorProfilerInfo5 */
    /* 81 */ HRESULT (*GetEventMask2)(ICorProfilerInfo15 *This, DWORD *pdwEventsLow,
                                      DWORD *pdwEventsHigh);
    /* 82 */ HRESULT (*SetEventMask2)(ICorProfilerInfo15 *This, DWORD dwEventsLow,
                                      DWORD dwEventsHigh);

    /* ICorProfilerInfo6 */
    /* 83 */ HRESULT (*EnumNgenModuleMethodsInliningThisMethod)(ICorProfilerInfo15 *This,
                                                                ModuleID inlinersModuleId,
                                                                ModuleID inlineeModuleId,
                                                                mdMethodDef inlineeMethodId,
                                                                BOOL *incompleteData,
                                                                ICorProfilerMethodEnum **ppEnum);

    /* ICorProfilerInfo7 */
    /* 84 */ HRESULT (*ApplyMetaData)(ICorProfilerInfo15 *This, ModuleID moduleId);
    /* 85 */ HRESULT (*GetInMemorySymbolsLength)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                                 DWORD *pCountSymbolBytes);
    /* 86 */ HRESULT (*ReadInMemorySymbols)(ICorProfilerInfo15 *This, ModuleID moduleId,
                                            DWORD symbolsReadOffset, BYTE *pSymbolBytes,
                                            DWORD countSymbolBytes, DWORD *pCountSymbolBytesRead);

    /* ICorProfilerInfo8 */
    /* 87 */ HRESULT (*IsFunctionDynamic)(ICorProfilerInfo15 *This, FunctionID functionId,
                                          BOOL *isDynamic);
    /* 88 */ HRESULT (*GetFunctionFromIP3)(ICorProfilerInfo15 *This, LPCBYTE ip,
                                           FunctionID *functionId, ReJITID *pReJitId);
    /* 89 */ HRESULT (*GetDynamicFunctionInfo)(ICorProfilerInfo15 *This, FunctionID functionId,
                                               ModuleID *moduleId, PCCOR_SIGNATURE *ppvSig,
                                               ULONG *pbSig, ULONG cchName, ULONG *pcchName,
                                               WCHAR wszName[]);

    /* ICorProfilerInfo9 */
    /* 90 */ HRESULT (*GetNativeCodeStartAddresses)(ICorProfilerInfo15 *This,
                                                    FunctionID functionID, ReJITID reJitId,
                                                    ULONG32 cCodeStartAddresses,
                                                    ULONG32 *pcCodeStartAddresses,
                                                    UINT_PTR codeStartAddresses[]);
    /* 91 */ HRESULT (*GetILToNativeMapping3)(ICorProfilerInfo15 *This,
                                              UINT_PTR pNativeCodeStartAddress, ULONG32 cMap,
                                              ULONG32 *pcMap, COR_DEBUG_IL_TO_NATIVE_MAP map[]);
    /* 92 */ HRESULT (*GetCodeInfo4)(ICorProfilerInfo15 *This, UINT_PTR pNativeCodeStartAddress,
                                     ULONG32 cCodeInfos, ULONG32 *pcCodeInfos,
                                     COR_PRF_CODE_INFO codeInfos[]);

    /* ICorProfilerInfo10 */
    /* 93 */ HRESULT (*EnumerateObjectReferences)(ICorProfilerInfo15 *This, ObjectID objectId,
                                                  ObjectReferenceCallback *callback,
                                                  void *clientData);
    /* 94 */ HRESULT (*IsFrozenObject)(ICorProfilerInfo15 *This, ObjectID objectId,
                                       BOOL *pbFrozen);
    /* 95 */ HRESULT (*GetLOHObjectSizeThreshold)(ICorProfilerInfo15 *This, DWORD *pThreshold);
    /* 96 */ HRESULT (*RequestReJITWithInliners)(ICorProfilerInfo15 *This, DWORD dwRejitFlags,
                                                 ULONG cFunctions, ModuleID moduleIds[],
                                                 mdMethodDef methodIds[]);
    /* 97 */ HRESULT (*SuspendRuntime)(ICorProfilerInfo15 *This);
    /* 98 */ HRESULT (*ResumeRuntime)(ICorProfilerInfo15 *This);

    /* ICorProfilerInfo11 */
    /* 99 */ HRESULT (*GetEnvironmentVariable)(ICorProfilerInfo15 *This, const WCHAR *szName,
                                               ULONG cchValue, ULONG *pcchValue,
                                               WCHAR szValue[]);
    /* 100 */ HRESULT (*SetEnvironmentVariable)(ICorProfilerInfo15 *This, const WCHAR *szName,
                                                const WCHAR *szValue);

    /* ICorProfilerInfo12 */
    /* 101 */ HRESULT (*EventPipeStartSession)(ICorProfilerInfo15 *This, UINT32 cProviderConfigs,
                                               COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[],
                                               BOOL requestRundown, EVENTPIPE_SESSION *pSession);
    /* 102 */ HRESULT (*EventPipeAddProviderToSession)(
        ICorProfilerInfo15 *This, EVENTPIPE_SESSION session,
        COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig);
    /* 103 */ HRESULT (*EventPipeStopSession)(ICorProfilerInfo15 *This,
                                              EVENTPIPE_SESSION session);
    /* 104 */ HRESULT (*EventPipeCreateProvider)(ICorProfilerInfo15 *This,
                                                 const WCHAR *providerName,
                                                 EVENTPIPE_PROVIDER *pProvider);
    /* 105 */ HRESULT (*EventPipeGetProviderInfo)(ICorProfilerInfo15 *This,
                                                  EVENTPIPE_PROVIDER provider, ULONG cchName,
                                                  ULONG *pcchName, WCHAR providerName[]);
    /* 106 */ HRESULT (*EventPipeDefineEvent)(ICorProfilerInfo15 *This,
                                              EVENTPIPE_PROVIDER provider,
                                              const WCHAR *eventName, UINT32 eventID,
                                              UINT64 keywords, UINT32 eventVersion, UINT32 level,
                                              UINT8 opcode, BOOL needStack, UINT32 cParamDescs,
                                              COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[],
                                              EVENTPIPE_EVENT *pEvent);
    /* 107 */ HRESULT (*EventPipeWriteEvent)(ICorProfilerInfo15 *This, EVENTPIPE_EVENT event,
                                             UINT32 cData, COR_PRF_EVENT_DATA data[],
                                             LPCGUID pActivityId, LPCGUID pRelatedActivityId);

    /* ICorProfilerInfo13 */
    /* 108 */ HRESULT (*CreateHandle)(ICorProfilerInfo15 *This, ObjectID object,
                                      COR_PRF_HANDLE_TYPE type, ObjectHandleID *pHandle);
    /* 109 */ HRESULT (*DestroyHandle)(ICorProfilerInfo15 *This, ObjectHandleID handle);
    /* 110 */ HRESULT (*GetObjectIDFromHandle)(ICorProfilerInfo15 *This, ObjectHandleID handle,
                                               ObjectID *pObject);

    /* ICorProfilerInfo14 */
    /* 111 */ HRESULT (*EnumerateNonGCObjects)(ICorProfilerInfo15 *This,
                                               ICorProfilerObjectEnum **ppEnum);
    /* 112 */ HRESULT (*GetNonGCHeapBounds)(ICorProfilerInfo15 *This, ULONG cObjectRanges,
                                            ULONG *pcObjectRanges,
                                            COR_PRF_NONGC_HEAP_RANGE ranges[]);
    /* 113 */ HRESULT (*EventPipeCreateProvider2)(ICorProfilerInfo15 *This,
                                                  const WCHAR *providerName,
                                                  EventPipeProviderCallback *pCallback,
                                                  EVENTPIPE_PROVIDER *pProvider);

    /* ICorProfilerInfo15 */
    /* 114 */ HRESULT (*EnumerateGCHeapObjects)(ICorProfilerInfo15 *This, ObjectCallback callback,
                                                void *callbackState);
} ICorProfilerInfo15Vtbl;

struct ICorProfilerInfo15 {
    const ICorProfilerInfo15Vtbl *lpVtbl;
};

/* ------------------------------------------------------------------------------------------ *
 * IMetaDataImport (cor.h): all 65 slots. Obtained from GetModuleMetaData /
 * GetTokenAndMetaDataFromFunction with IID_IMetaDataImport.
 * ------------------------------------------------------------------------------------------ */

typedef struct IMetaDataImport IMetaDataImport;
typedef struct IMetaDataImportVtbl {
    /* 0 */ HRESULT (*QueryInterface)(IMetaDataImport *This, REFIID riid, void **ppvObject);
    /* 1 */ ULONG (*AddRef)(IMetaDataImport *This);
    /* 2 */ ULONG (*Release)(IMetaDataImport *This);
    /* 3 */ void (*CloseEnum)(IMetaDataImport *This, HCORENUM hEnum);
    /* 4 */ HRESULT (*CountEnum)(IMetaDataImport *This, HCORENUM hEnum, ULONG *pulCount);
    /* 5 */ HRESULT (*ResetEnum)(IMetaDataImport *This, HCORENUM hEnum, ULONG ulPos);
    /* 6 */ HRESULT (*EnumTypeDefs)(IMetaDataImport *This, HCORENUM *phEnum,
                                    mdTypeDef rTypeDefs[], ULONG cMax, ULONG *pcTypeDefs);
    /* 7 */ HRESULT (*EnumInterfaceImpls)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td,
                                          mdInterfaceImpl rImpls[], ULONG cMax, ULONG *pcImpls);
    /* 8 */ HRESULT (*EnumTypeRefs)(IMetaDataImport *This, HCORENUM *phEnum,
                                    mdTypeRef rTypeRefs[], ULONG cMax, ULONG *pcTypeRefs);
    /* 9 */ HRESULT (*FindTypeDefByName)(IMetaDataImport *This, LPCWSTR szTypeDef,
                                         mdToken tkEnclosingClass, mdTypeDef *ptd);
    /* 10 */ HRESULT (*GetScopeProps)(IMetaDataImport *This, LPWSTR szName, ULONG cchName,
                                      ULONG *pchName, GUID *pmvid);
    /* 11 */ HRESULT (*GetModuleFromScope)(IMetaDataImport *This, mdModule *pmd);
    /* 12 */ HRESULT (*GetTypeDefProps)(IMetaDataImport *This, mdTypeDef td, LPWSTR szTypeDef,
                                        ULONG cchTypeDef, ULONG *pchTypeDef,
                                        DWORD *pdwTypeDefFlags, mdToken *ptkExtends);
    /* 13 */ HRESULT (*GetInterfaceImplProps)(IMetaDataImport *This, mdInterfaceImpl iiImpl,
                                              mdTypeDef *pClass, mdToken *ptkIface);
    /* 14 */ HRESULT (*GetTypeRefProps)(IMetaDataImport *This, mdTypeRef tr,
                                        mdToken *ptkResolutionScope, LPWSTR szName,
                                        ULONG cchName, ULONG *pchName);
    /* 15 */ HRESULT (*ResolveTypeRef)(IMetaDataImport *This, mdTypeRef tr, REFIID riid,
                                       IUnknown **ppIScope, mdTypeDef *ptd);
    /* 16 */ HRESULT (*EnumMembers)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl,
                                    mdToken rMembers[], ULONG cMax, ULONG *pcTokens);
    /* 17 */ HRESULT (*EnumMembersWithName)(IMetaDataImport *This, HCORENUM *phEnum,
                                            mdTypeDef cl, LPCWSTR szName, mdToken rMembers[],
                                            ULONG cMax, ULONG *pcTokens);
    /* 18 */ HRESULT (*EnumMethods)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl,
                                    mdMethodDef rMethods[], ULONG cMax, ULONG *pcTokens);
    /* 19 */ HRESULT (*EnumMethodsWithName)(IMetaDataImport *This, HCORENUM *phEnum,
                                            mdTypeDef cl, LPCWSTR szName, mdMethodDef rMethods[],
                                            ULONG cMax, ULONG *pcTokens);
    /* 20 */ HRESULT (*EnumFields)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef cl,
                                   mdFieldDef rFields[], ULONG cMax, ULONG *pcTokens);
    /* 21 */ HRESULT (*EnumFieldsWithName)(IMetaDataImport *This, HCORENUM *phEnum,
                                           mdTypeDef cl, LPCWSTR szName, mdFieldDef rFields[],
                                           ULONG cMax, ULONG *pcTokens);
    /* 22 */ HRESULT (*EnumParams)(IMetaDataImport *This, HCORENUM *phEnum, mdMethodDef mb,
                                   mdParamDef rParams[], ULONG cMax, ULONG *pcTokens);
    /* 23 */ HRESULT (*EnumMemberRefs)(IMetaDataImport *This, HCORENUM *phEnum, mdToken tkParent,
                                       mdMemberRef rMemberRefs[], ULONG cMax, ULONG *pcTokens);
    /* 24 */ HRESULT (*EnumMethodImpls)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td,
                                        mdToken rMethodBody[], mdToken rMethodDecl[], ULONG cMax,
                                        ULONG *pcTokens);
    /* 25 */ HRESULT (*EnumPermissionSets)(IMetaDataImport *This, HCORENUM *phEnum, mdToken tk,
                                           DWORD dwActions, mdPermission rPermission[],
                                           ULONG cMax, ULONG *pcTokens);
    /* 26 */ HRESULT (*FindMember)(IMetaDataImport *This, mdTypeDef td, LPCWSTR szName,
                                   PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, mdToken *pmb);
    /* 27 */ HRESULT (*FindMethod)(IMetaDataImport *This, mdTypeDef td, LPCWSTR szName,
                                   PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, mdMethodDef *pmb);
    /* 28 */ HRESULT (*FindField)(IMetaDataImport *This, mdTypeDef td, LPCWSTR szName,
                                  PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob, mdFieldDef *pmb);
    /* 29 */ HRESULT (*FindMemberRef)(IMetaDataImport *This, mdTypeRef td, LPCWSTR szName,
                                      PCCOR_SIGNATURE pvSigBlob, ULONG cbSigBlob,
                                      mdMemberRef *pmr);
    /* 30 */ HRESULT (*GetMethodProps)(IMetaDataImport *This, mdMethodDef mb, mdTypeDef *pClass,
                                       LPWSTR szMethod, ULONG cchMethod, ULONG *pchMethod,
                                       DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                       ULONG *pcbSigBlob, ULONG *pulCodeRVA,
                                       DWORD *pdwImplFlags);
    /* 31 */ HRESULT (*GetMemberRefProps)(IMetaDataImport *This, mdMemberRef mr, mdToken *ptk,
                                          LPWSTR szMember, ULONG cchMember, ULONG *pchMember,
                                          PCCOR_SIGNATURE *ppvSigBlob, ULONG *pbSig);
    /* 32 */ HRESULT (*EnumProperties)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td,
                                       mdProperty rProperties[], ULONG cMax,
                                       ULONG *pcProperties);
    /* 33 */ HRESULT (*EnumEvents)(IMetaDataImport *This, HCORENUM *phEnum, mdTypeDef td,
                                   mdEvent rEvents[], ULONG cMax, ULONG *pcEvents);
    /* 34: szEvent is an output buffer although cor.h spells it LPCWSTR. */
    /* 34 */ HRESULT (*GetEventProps)(IMetaDataImport *This, mdEvent ev, mdTypeDef *pClass,
                                      LPWSTR szEvent, ULONG cchEvent, ULONG *pchEvent,
                                      DWORD *pdwEventFlags, mdToken *ptkEventType,
                                      mdMethodDef *pmdAddOn, mdMethodDef *pmdRemoveOn,
                                      mdMethodDef *pmdFire, mdMethodDef rmdOtherMethod[],
                                      ULONG cMax, ULONG *pcOtherMethod);
    /* 35 */ HRESULT (*EnumMethodSemantics)(IMetaDataImport *This, HCORENUM *phEnum,
                                            mdMethodDef mb, mdToken rEventProp[], ULONG cMax,
                                            ULONG *pcEventProp);
    /* 36 */ HRESULT (*GetMethodSemantics)(IMetaDataImport *This, mdMethodDef mb,
                                           mdToken tkEventProp, DWORD *pdwSemanticsFlags);
    /* 37 */ HRESULT (*GetClassLayout)(IMetaDataImport *This, mdTypeDef td, DWORD *pdwPackSize,
                                       COR_FIELD_OFFSET rFieldOffset[], ULONG cMax,
                                       ULONG *pcFieldOffset, ULONG *pulClassSize);
    /* 38 */ HRESULT (*GetFieldMarshal)(IMetaDataImport *This, mdToken tk,
                                        PCCOR_SIGNATURE *ppvNativeType, ULONG *pcbNativeType);
    /* 39 */ HRESULT (*GetRVA)(IMetaDataImport *This, mdToken tk, ULONG *pulCodeRVA,
                               DWORD *pdwImplFlags);
    /* 40 */ HRESULT (*GetPermissionSetProps)(IMetaDataImport *This, mdPermission pm,
                                              DWORD *pdwAction, void const **ppvPermission,
                                              ULONG *pcbPermission);
    /* 41 */ HRESULT (*GetSigFromToken)(IMetaDataImport *This, mdSignature mdSig,
                                        PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig);
    /* 42 */ HRESULT (*GetModuleRefProps)(IMetaDataImport *This, mdModuleRef mur, LPWSTR szName,
                                          ULONG cchName, ULONG *pchName);
    /* 43 */ HRESULT (*EnumModuleRefs)(IMetaDataImport *This, HCORENUM *phEnum,
                                       mdModuleRef rModuleRefs[], ULONG cmax,
                                       ULONG *pcModuleRefs);
    /* 44 */ HRESULT (*GetTypeSpecFromToken)(IMetaDataImport *This, mdTypeSpec typespec,
                                             PCCOR_SIGNATURE *ppvSig, ULONG *pcbSig);
    /* 45 */ HRESULT (*GetNameFromToken)(IMetaDataImport *This, mdToken tk,
                                         MDUTF8CSTR *pszUtf8NamePtr);
    /* 46 */ HRESULT (*EnumUnresolvedMethods)(IMetaDataImport *This, HCORENUM *phEnum,
                                              mdToken rMethods[], ULONG cMax, ULONG *pcTokens);
    /* 47 */ HRESULT (*GetUserString)(IMetaDataImport *This, mdString stk, LPWSTR szString,
                                      ULONG cchString, ULONG *pchString);
    /* 48 */ HRESULT (*GetPinvokeMap)(IMetaDataImport *This, mdToken tk, DWORD *pdwMappingFlags,
                                      LPWSTR szImportName, ULONG cchImportName,
                                      ULONG *pchImportName, mdModuleRef *pmrImportDLL);
    /* 49 */ HRESULT (*EnumSignatures)(IMetaDataImport *This, HCORENUM *phEnum,
                                       mdSignature rSignatures[], ULONG cmax,
                                       ULONG *pcSignatures);
    /* 50 */ HRESULT (*EnumTypeSpecs)(IMetaDataImport *This, HCORENUM *phEnum,
                                      mdTypeSpec rTypeSpecs[], ULONG cmax, ULONG *pcTypeSpecs);
    /* 51 */ HRESULT (*EnumUserStrings)(IMetaDataImport *This, HCORENUM *phEnum,
                                        mdString rStrings[], ULONG cmax, ULONG *pcStrings);
    /* 52 */ HRESULT (*GetParamForMethodIndex)(IMetaDataImport *This, mdMethodDef md,
                                               ULONG ulParamSeq, mdParamDef *ppd);
    /* 53 */ HRESULT (*EnumCustomAttributes)(IMetaDataImport *This, HCORENUM *phEnum, mdToken tk,
                                             mdToken tkType,
                                             mdCustomAttribute rCustomAttributes[], ULONG cMax,
                                             ULONG *pcCustomAttributes);
    /* 54 */ HRESULT (*GetCustomAttributeProps)(IMetaDataImport *This, mdCustomAttribute cv,
                                                mdToken *ptkObj, mdToken *ptkType,
                                                void const **ppBlob, ULONG *pcbSize);
    /* 55 */ HRESULT (*FindTypeRef)(IMetaDataImport *This, mdToken tkResolutionScope,
                                    LPCWSTR szName, mdTypeRef *ptr);
    /* 56 */ HRESULT (*GetMemberProps)(IMetaDataImport *This, mdToken mb, mdTypeDef *pClass,
                                       LPWSTR szMember, ULONG cchMember, ULONG *pchMember,
                                       DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                       ULONG *pcbSigBlob, ULONG *pulCodeRVA, DWORD *pdwImplFlags,
                                       DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppValue,
                                       ULONG *pcchValue);
    /* 57 */ HRESULT (*GetFieldProps)(IMetaDataImport *This, mdFieldDef mb, mdTypeDef *pClass,
                                      LPWSTR szField, ULONG cchField, ULONG *pchField,
                                      DWORD *pdwAttr, PCCOR_SIGNATURE *ppvSigBlob,
                                      ULONG *pcbSigBlob, DWORD *pdwCPlusTypeFlag,
                                      UVCP_CONSTANT *ppValue, ULONG *pcchValue);
    /* 58: szProperty is an output buffer although cor.h spells it LPCWSTR. */
    /* 58 */ HRESULT (*GetPropertyProps)(IMetaDataImport *This, mdProperty prop,
                                         mdTypeDef *pClass, LPWSTR szProperty, ULONG cchProperty,
                                         ULONG *pchProperty, DWORD *pdwPropFlags,
                                         PCCOR_SIGNATURE *ppvSig, ULONG *pbSig,
                                         DWORD *pdwCPlusTypeFlag, UVCP_CONSTANT *ppDefaultValue,
                                         ULONG *pcchDefaultValue, mdMethodDef *pmdSetter,
                                         mdMethodDef *pmdGetter, mdMethodDef rmdOtherMethod[],
                                         ULONG cMax, ULONG *pcOtherMethod);
    /* 59 */ HRESULT (*GetParamProps)(IMetaDataImport *This, mdParamDef tk, mdMethodDef *pmd,
                                      ULONG *pulSequence, LPWSTR szName, ULONG cchName,
                                      ULONG *pchName, DWORD *pdwAttr, DWORD *pdwCPlusTypeFlag,
                                      UVCP_CONSTANT *ppValue, ULONG *pcchValue);
    /* 60 */ HRESULT (*GetCustomAttributeByName)(IMetaDataImport *This, mdToken tkObj,
                                                 LPCWSTR szName, const void **ppData,
                                                 ULONG *pcbData);
    /* 61 */ BOOL (*IsValidToken)(IMetaDataImport *This, mdToken tk);
    /* 62 */ HRESULT (*GetNestedClassProps)(IMetaDataImport *This, mdTypeDef tdNestedClass,
                                            mdTypeDef *ptdEnclosingClass);
    /* 63 */ HRESULT (*GetNativeCallConvFromSig)(IMetaDataImport *This, void const *pvSig,
                                                 ULONG cbSig, ULONG *pCallConv);
    /* 64 */ HRESULT (*IsGlobal)(IMetaDataImport *This, mdToken pd, int *pbGlobal);
} IMetaDataImportVtbl;

struct IMetaDataImport {
    const IMetaDataImportVtbl *lpVtbl;
};

/* ------------------------------------------------------------------------------------------ *
 * Layout checks: every mismatch with the runtime's slot numbers fails the build.
 * ------------------------------------------------------------------------------------------ */

#define SXS_COR_SLOT(vtbl, member, n)                                                             \
    _Static_assert(offsetof(vtbl, member) == (size_t)(n) * sizeof(void *),                       \
                   #vtbl "." #member " must be slot " #n)
#define SXS_COR_SLOTS(vtbl, n)                                                                    \
    _Static_assert(sizeof(vtbl) == (size_t)(n) * sizeof(void *), #vtbl " must have " #n " slots")

_Static_assert(sizeof(void *) == 8, "LP64 only");
_Static_assert(sizeof(GUID) == 16, "GUID is 16 bytes");
_Static_assert(sizeof(HRESULT) == 4, "HRESULT is 32-bit");
_Static_assert(sizeof(ULONG) == 4, "ULONG is 32-bit on the PAL, not long");
_Static_assert(sizeof(DWORD) == 4, "DWORD is 32-bit");
_Static_assert(sizeof(BOOL) == 4, "BOOL is int");
_Static_assert(sizeof(WCHAR) == 2, "WCHAR is UTF-16");
_Static_assert(sizeof(USHORT) == 2, "USHORT is 16-bit");
_Static_assert(sizeof(mdToken) == 4, "mdToken is 32-bit");
_Static_assert(sizeof(UINT_PTR) == 8 && sizeof(SIZE_T) == 8, "pointer-sized integers");
_Static_assert(sizeof(FunctionID) == 8 && sizeof(ThreadID) == 8, "IDs are pointer-sized");
_Static_assert(sizeof(FunctionIDOrClientID) == 8, "FunctionIDOrClientID is one register");
_Static_assert(sizeof(COR_PRF_CODE_INFO) == 16, "COR_PRF_CODE_INFO");
_Static_assert(sizeof(COR_PRF_FUNCTION) == 16, "COR_PRF_FUNCTION");
_Static_assert(sizeof(COR_PRF_METHOD) == 16, "COR_PRF_METHOD");
_Static_assert(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP");
_Static_assert(sizeof(COR_IL_MAP) == 12, "COR_IL_MAP");
_Static_assert(sizeof(COR_FIELD_OFFSET) == 8, "COR_FIELD_OFFSET");
_Static_assert(sizeof(COR_PRF_GC_GENERATION_RANGE) == 32, "COR_PRF_GC_GENERATION_RANGE");
_Static_assert(sizeof(COR_PRF_EX_CLAUSE_INFO) == 32, "COR_PRF_EX_CLAUSE_INFO");
_Static_assert(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32, "provider config by value");
_Static_assert(sizeof(COR_PRF_JIT_CACHE) == 4 && sizeof(COR_PRF_TRANSITION_REASON) == 4 &&
                   sizeof(COR_PRF_SUSPEND_REASON) == 4 && sizeof(COR_PRF_GC_REASON) == 4 &&
                   sizeof(COR_PRF_GC_ROOT_KIND) == 4 && sizeof(COR_PRF_GC_ROOT_FLAGS) == 4 &&
                   sizeof(COR_PRF_RUNTIME_TYPE) == 4 && sizeof(COR_PRF_STATIC_TYPE) == 4 &&
                   sizeof(COR_PRF_HANDLE_TYPE) == 4 && sizeof(COR_PRF_GC_GENERATION) == 4,
               "enums in signatures are 4 bytes, as in the runtime");
_Static_assert(COR_PRF_MONITOR_IMMUTABLE == 0xEE98CC00u, "COR_PRF_MONITOR_IMMUTABLE");
_Static_assert(COR_PRF_ALLOWABLE_AFTER_ATTACH == 0x106502FEu, "COR_PRF_ALLOWABLE_AFTER_ATTACH");
_Static_assert(COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER == 0xB1E32B7Fu,
               "COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER");
_Static_assert(COR_PRF_REQUIRE_PROFILE_IMAGE == 0x20001800u, "COR_PRF_REQUIRE_PROFILE_IMAGE");
_Static_assert(COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH == 0xF6u, "COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH");
_Static_assert(COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER == 0xFEu,
               "COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER");

SXS_COR_SLOTS(IUnknownVtbl, 3);
SXS_COR_SLOT(IUnknownVtbl, QueryInterface, 0);
SXS_COR_SLOT(IUnknownVtbl, AddRef, 1);
SXS_COR_SLOT(IUnknownVtbl, Release, 2);
SXS_COR_SLOTS(IClassFactoryVtbl, 5);
SXS_COR_SLOT(IClassFactoryVtbl, CreateInstance, 3);
SXS_COR_SLOT(IClassFactoryVtbl, LockServer, 4);
SXS_COR_SLOTS(IMethodMallocVtbl, 4);
SXS_COR_SLOTS(ICorProfilerFunctionControlVtbl, 6);
SXS_COR_SLOTS(ICorProfilerAssemblyReferenceProviderVtbl, 4);

#define SXS_COR_ENUM_SLOTS(vtbl)                                                                  \
    SXS_COR_SLOTS(vtbl, 8);                                                                       \
    SXS_COR_SLOT(vtbl, Skip, 3);                                                                  \
    SXS_COR_SLOT(vtbl, Reset, 4);                                                                 \
    SXS_COR_SLOT(vtbl, Clone, 5);                                                                 \
    SXS_COR_SLOT(vtbl, GetCount, 6);                                                              \
    SXS_COR_SLOT(vtbl, Next, 7)
SXS_COR_ENUM_SLOTS(ICorProfilerObjectEnumVtbl);
SXS_COR_ENUM_SLOTS(ICorProfilerFunctionEnumVtbl);
SXS_COR_ENUM_SLOTS(ICorProfilerModuleEnumVtbl);
SXS_COR_ENUM_SLOTS(ICorProfilerMethodEnumVtbl);
SXS_COR_ENUM_SLOTS(ICorProfilerThreadEnumVtbl);
#undef SXS_COR_ENUM_SLOTS

/* Every slot of the two big vtables, generated from the slot lists in
 * shared/reference/coreclr-profiling-abi.md (section 3), which were read from corprof.idl. */
SXS_COR_SLOTS(ICorProfilerCallback11Vtbl, 98);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, Initialize, 3);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, Shutdown, 4);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AppDomainCreationStarted, 5);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AppDomainCreationFinished, 6);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AppDomainShutdownStarted, 7);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AppDomainShutdownFinished, 8);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AssemblyLoadStarted, 9);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AssemblyLoadFinished, 10);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AssemblyUnloadStarted, 11);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, AssemblyUnloadFinished, 12);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleLoadStarted, 13);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleLoadFinished, 14);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleUnloadStarted, 15);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleUnloadFinished, 16);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleAttachedToAssembly, 17);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ClassLoadStarted, 18);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ClassLoadFinished, 19);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ClassUnloadStarted, 20);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ClassUnloadFinished, 21);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, FunctionUnloadStarted, 22);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITCompilationStarted, 23);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITCompilationFinished, 24);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITCachedFunctionSearchStarted, 25);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITCachedFunctionSearchFinished, 26);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITFunctionPitched, 27);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, JITInlining, 28);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ThreadCreated, 29);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ThreadDestroyed, 30);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ThreadAssignedToOSThread, 31);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingClientInvocationStarted, 32);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingClientSendingMessage, 33);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingClientReceivingReply, 34);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingClientInvocationFinished, 35);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingServerReceivingMessage, 36);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingServerInvocationStarted, 37);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingServerInvocationReturned, 38);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RemotingServerSendingReply, 39);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, UnmanagedToManagedTransition, 40);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ManagedToUnmanagedTransition, 41);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeSuspendStarted, 42);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeSuspendFinished, 43);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeSuspendAborted, 44);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeResumeStarted, 45);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeResumeFinished, 46);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeThreadSuspended, 47);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RuntimeThreadResumed, 48);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, MovedReferences, 49);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ObjectAllocated, 50);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ObjectsAllocatedByClass, 51);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ObjectReferences, 52);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RootReferences, 53);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionThrown, 54);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionSearchFunctionEnter, 55);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionSearchFunctionLeave, 56);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionSearchFilterEnter, 57);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionSearchFilterLeave, 58);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionSearchCatcherFound, 59);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionOSHandlerEnter, 60);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionOSHandlerLeave, 61);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionUnwindFunctionEnter, 62);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionUnwindFunctionLeave, 63);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionUnwindFinallyEnter, 64);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionUnwindFinallyLeave, 65);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionCatcherEnter, 66);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionCatcherLeave, 67);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, COMClassicVTableCreated, 68);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, COMClassicVTableDestroyed, 69);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherFound, 70);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ExceptionCLRCatcherExecute, 71);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ThreadNameChanged, 72);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, GarbageCollectionStarted, 73);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, SurvivingReferences, 74);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, GarbageCollectionFinished, 75);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, FinalizeableObjectQueued, 76);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, RootReferences2, 77);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, HandleCreated, 78);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, HandleDestroyed, 79);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, InitializeForAttach, 80);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ProfilerAttachComplete, 81);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ProfilerDetachSucceeded, 82);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationStarted, 83);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, GetReJITParameters, 84);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ReJITCompilationFinished, 85);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ReJITError, 86);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, MovedReferences2, 87);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, SurvivingReferences2, 88);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ConditionalWeakTableElementReferences, 89);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, GetAssemblyReferences, 90);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, ModuleInMemorySymbolsUpdated, 91);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationStarted, 92);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodJITCompilationFinished, 93);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, DynamicMethodUnloaded, 94);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, EventPipeEventDelivered, 95);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, EventPipeProviderCreated, 96);
SXS_COR_SLOT(ICorProfilerCallback11Vtbl, LoadAsNotificationOnly, 97);
SXS_COR_SLOTS(ICorProfilerInfo15Vtbl, 115);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassFromObject, 3);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassFromToken, 4);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo, 5);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetEventMask, 6);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionFromIP, 7);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionFromToken, 8);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetHandleFromThread, 9);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetObjectSize, 10);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, IsArrayClass, 11);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetThreadInfo, 12);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetCurrentThreadID, 13);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassIDInfo, 14);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionInfo, 15);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEventMask, 16);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEnterLeaveFunctionHooks, 17);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetFunctionIDMapper, 18);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetTokenAndMetaDataFromFunction, 19);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo, 20);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetModuleMetaData, 21);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBody, 22);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetILFunctionBodyAllocator, 23);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetILFunctionBody, 24);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetAppDomainInfo, 25);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetAssemblyInfo, 26);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetFunctionReJIT, 27);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, ForceGC, 28);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetILInstrumentedCodeMap, 29);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetInprocInspectionInterface, 30);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetInprocInspectionIThisThread, 31);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetThreadContext, 32);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, BeginInprocDebugging, 33);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EndInprocDebugging, 34);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping, 35);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, DoStackSnapshot, 36);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEnterLeaveFunctionHooks2, 37);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionInfo2, 38);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetStringLayout, 39);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassLayout, 40);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassIDInfo2, 41);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo2, 42);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetClassFromTokenAndTypeArgs, 43);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionFromTokenAndTypeArgs, 44);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumModuleFrozenObjects, 45);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetArrayObjectInfo, 46);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetBoxClassLayout, 47);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetThreadAppDomain, 48);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetRVAStaticAddress, 49);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetAppDomainStaticAddress, 50);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetThreadStaticAddress, 51);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetContextStaticAddress, 52);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetStaticFieldInfo, 53);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetGenerationBounds, 54);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetObjectGeneration, 55);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetNotifiedExceptionClauseInfo, 56);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumJITedFunctions, 57);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, RequestProfilerDetach, 58);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetFunctionIDMapper2, 59);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetStringLayout2, 60);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEnterLeaveFunctionHooks3, 61);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEnterLeaveFunctionHooks3WithInfo, 62);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionEnter3Info, 63);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionLeave3Info, 64);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionTailcall3Info, 65);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumModules, 66);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetRuntimeInformation, 67);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetThreadStaticAddress2, 68);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetAppDomainsContainingModule, 69);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetModuleInfo2, 70);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumThreads, 71);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, InitializeCurrentThread, 72);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, RequestReJIT, 73);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, RequestRevert, 74);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo3, 75);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionFromIP2, 76);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetReJITIDs, 77);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping2, 78);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumJITedFunctions2, 79);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetObjectSize2, 80);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetEventMask2, 81);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEventMask2, 82);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumNgenModuleMethodsInliningThisMethod, 83);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, ApplyMetaData, 84);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetInMemorySymbolsLength, 85);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, ReadInMemorySymbols, 86);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, IsFunctionDynamic, 87);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetFunctionFromIP3, 88);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetDynamicFunctionInfo, 89);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetNativeCodeStartAddresses, 90);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetILToNativeMapping3, 91);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetCodeInfo4, 92);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumerateObjectReferences, 93);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, IsFrozenObject, 94);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetLOHObjectSizeThreshold, 95);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, RequestReJITWithInliners, 96);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SuspendRuntime, 97);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, ResumeRuntime, 98);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetEnvironmentVariable, 99);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, SetEnvironmentVariable, 100);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeStartSession, 101);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeAddProviderToSession, 102);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeStopSession, 103);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeCreateProvider, 104);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeGetProviderInfo, 105);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeDefineEvent, 106);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeWriteEvent, 107);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, CreateHandle, 108);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, DestroyHandle, 109);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetObjectIDFromHandle, 110);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumerateNonGCObjects, 111);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, GetNonGCHeapBounds, 112);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EventPipeCreateProvider2, 113);
SXS_COR_SLOT(ICorProfilerInfo15Vtbl, EnumerateGCHeapObjects, 114);
/* IMetaDataImport: 3-31 from the reference, the rest counted in cor.h. */
SXS_COR_SLOTS(IMetaDataImportVtbl, 65);
SXS_COR_SLOT(IMetaDataImportVtbl, CloseEnum, 3);
SXS_COR_SLOT(IMetaDataImportVtbl, CountEnum, 4);
SXS_COR_SLOT(IMetaDataImportVtbl, ResetEnum, 5);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumTypeDefs, 6);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumInterfaceImpls, 7);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumTypeRefs, 8);
SXS_COR_SLOT(IMetaDataImportVtbl, FindTypeDefByName, 9);
SXS_COR_SLOT(IMetaDataImportVtbl, GetScopeProps, 10);
SXS_COR_SLOT(IMetaDataImportVtbl, GetModuleFromScope, 11);
SXS_COR_SLOT(IMetaDataImportVtbl, GetTypeDefProps, 12);
SXS_COR_SLOT(IMetaDataImportVtbl, GetInterfaceImplProps, 13);
SXS_COR_SLOT(IMetaDataImportVtbl, GetTypeRefProps, 14);
SXS_COR_SLOT(IMetaDataImportVtbl, ResolveTypeRef, 15);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMembers, 16);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMembersWithName, 17);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMethods, 18);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMethodsWithName, 19);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumFields, 20);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumFieldsWithName, 21);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumParams, 22);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMemberRefs, 23);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumMethodImpls, 24);
SXS_COR_SLOT(IMetaDataImportVtbl, EnumPermissionSets, 25);
SXS_COR_SLOT(IMetaDataImportVtbl, FindMember, 26);
SXS_COR_SLOT(IMetaDataImportVtbl, FindMethod, 27);
SXS_COR_SLOT(IMetaDataImportVtbl, FindField, 28);
SXS_COR_SLOT(IMetaDataImportVtbl, FindMemberRef, 29);
SXS_COR_SLOT(IMetaDataImportVtbl, GetMethodProps, 30);
SXS_COR_SLOT(IMetaDataImportVtbl, GetMemberRefProps, 31);
SXS_COR_SLOT(IMetaDataImportVtbl, GetCustomAttributeByName, 60);
SXS_COR_SLOT(IMetaDataImportVtbl, IsValidToken, 61);
SXS_COR_SLOT(IMetaDataImportVtbl, GetNestedClassProps, 62);
SXS_COR_SLOT(IMetaDataImportVtbl, IsGlobal, 64);

#endif /* SXS_COR_H */
/* clang-format on */
