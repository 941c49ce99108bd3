package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.uring.Errno;
import io.nvmf4j.verbs.ProviderAvailability;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Why the ibverbs provider can or cannot be used here, in one sentence that names the way out. Probes the two
 * libraries by soname before any generated binding class is touched ({@code ibverbs_h} opens both in its static
 * initialiser and would fail with an {@code ExceptionInInitializerError}), then asks libibverbs for devices.
 */
final class IbverbsAvailability {
    static final String WAY_OUT = "use --provider softiwarp";
    static final String VERBS_SONAME = "libibverbs.so.1";
    static final String CM_SONAME = "librdmacm.so.1";

    private IbverbsAvailability() {
    }

    /** Probes the default sonames and the device list. */
    static ProviderAvailability probe() {
        return probe(VERBS_SONAME, CM_SONAME);
    }

    /**
     * Probes as {@link #probe()}, but only when {@code verbsSysfs} lists a {@code uverbsN} device: libibverbs finds
     * its devices there (rdma-core {@code find_sysfs_devs()}), so without one it can only answer "no device", and
     * asking it would load two libraries through restricted FFM methods, which makes the JVM print a warning in a
     * program that did not enable native access, though it will run on softiwarp.
     */
    static ProviderAvailability probe(Path verbsSysfs) {
        if (!hasUserSpaceDevice(verbsSysfs)) {
            return ProviderAvailability.unavailable(noUserSpaceDevice(verbsSysfs));
        }
        return probe();
    }

    static String noUserSpaceDevice(Path verbsSysfs) {
        return "no RDMA device found (the kernel offers none to user space: no uverbs entry in " + verbsSysfs
                + "; a NIC needs its driver and ib_uverbs loaded); " + WAY_OUT;
    }

    static boolean hasUserSpaceDevice(Path verbsSysfs) {
        try (Stream<Path> entries = Files.list(verbsSysfs)) {
            return entries.anyMatch(p -> p.getFileName().toString().startsWith("uverbs"));
        } catch (IOException | RuntimeException e) {
            return false;   // no such directory: no RDMA subsystem, no device
        }
    }

    /**
     * Probes with the given library names (tests pass a name that does not exist to see the missing-library
     * sentence on a machine that has the library).
     */
    static ProviderAvailability probe(String verbsSoname, String cmSoname) {
        if (!loadable(verbsSoname)) {
            return ProviderAvailability.unavailable(verbsSoname + " not found: install rdma-core (Debian/Ubuntu: "
                    + "libibverbs1 and librdmacm1); " + WAY_OUT);
        }
        if (!loadable(cmSoname)) {
            return ProviderAvailability.unavailable(cmSoname + " not found: install rdma-core (Debian/Ubuntu: "
                    + "librdmacm1); " + WAY_OUT);
        }
        if (!verbsSoname.equals(VERBS_SONAME) || !cmSoname.equals(CM_SONAME)) {
            // the generated bindings are bound to the default sonames; other names are only probed
            return ProviderAvailability.unavailable("the ibverbs bindings load " + VERBS_SONAME + " and " + CM_SONAME
                    + ", not " + verbsSoname + " and " + cmSoname + "; " + WAY_OUT);
        }
        return probeDevices();
    }

    private static ProviderAvailability probeDevices() {
        Native.DeviceList devices;
        try {
            devices = Native.ibvGetDeviceList();
        } catch (RuntimeException | LinkageError e) {
            return ProviderAvailability.unavailable("libibverbs could not be called (" + e + "); " + WAY_OUT);
        }
        try {
            if (devices.list().equals(java.lang.foreign.MemorySegment.NULL)) {
                return ProviderAvailability.unavailable(listFailure(devices.errno()) + "; " + WAY_OUT);
            }
            if (devices.count() == 0) {
                return ProviderAvailability.unavailable(
                        "no RDMA device found (ibv_get_device_list returned 0 devices); " + WAY_OUT);
            }
            return ProviderAvailability.available(devices.count() + " RDMA device(s) found by libibverbs");
        } finally {
            if (!devices.list().equals(java.lang.foreign.MemorySegment.NULL)) {
                io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h.ibv_free_device_list(devices.list());
            }
        }
    }

    /** libibverbs fails with ENOSYS when /sys/class/infiniband_verbs is missing: no device for user space. */
    static String listFailure(int errno) {
        if (errno == Errno.ENOSYS) {
            return "no RDMA device found (ibv_get_device_list failed with ENOSYS: the kernel offers no RDMA device"
                    + " to user space, /sys/class/infiniband_verbs is missing)";
        }
        return "ibv_get_device_list failed with " + Errno.name(errno);
    }

    @SuppressWarnings("restricted") // FFM: opens a C library; the module is granted native access
    private static boolean loadable(String soname) {
        try (Arena arena = Arena.ofConfined()) {
            SymbolLookup.libraryLookup(soname, arena);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
