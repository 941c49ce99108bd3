package io.nvmf4j.verbs.ibverbs;

import io.nvmf4j.verbs.ProviderAvailability;
import io.nvmf4j.verbs.ProviderUnavailableException;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProvider;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.ibverbs.ffi.ibverbs_h;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * RDMA hardware and the kernel's software devices ({@code rxe}, {@code siw}) through libibverbs and librdmacm,
 * called with the Java FFM API over the jextract bindings in {@code io.nvmf4j.verbs.ibverbs.ffi}. Devices are the
 * contexts librdmacm opened ({@code rdma_get_devices}), so protection domains, CQs and queue pairs made here live
 * in the same context as the rdma_cm ids that connect them.
 */
public final class IbverbsProvider implements RdmaProvider {
    public static final String NAME = "ibverbs";

    private final IbverbsConfig config;

    public IbverbsProvider() {
        this(IbverbsConfig.fromSystemProperties());
    }

    IbverbsProvider(IbverbsConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Hardware (or the kernel's devices) beats the pure-Java fallback when present. */
    @Override
    public int priority() {
        return 100;
    }

    /**
     * Looks at the kernel's list of RDMA devices for user space first, in plain Java: where there is none (most
     * machines, which then use softiwarp) the libraries are not loaded, so a program that never enabled native
     * access gets no JVM warning about restricted methods it does not use.
     */
    @Override
    public ProviderAvailability availability() {
        return IbverbsAvailability.probe(config.verbsSysfs());
    }

    @Override
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    public List<String> deviceNames() {
        if (!availability().present()) {
            return List.of();
        }
        Native.DeviceList devices = Native.ibvGetDeviceList();
        if (devices.list().equals(MemorySegment.NULL)) {
            return List.of();
        }
        try {
            MemorySegment array = devices.list().reinterpret(ValueLayout.ADDRESS.byteSize() * devices.count());
            List<String> names = new ArrayList<>(devices.count());
            for (int i = 0; i < devices.count(); i++) {
                MemorySegment device = array.getAtIndex(ValueLayout.ADDRESS, i);
                names.add(ibverbs_h.ibv_get_device_name(device).reinterpret(256).getString(0));
            }
            return List.copyOf(names);
        } finally {
            ibverbs_h.ibv_free_device_list(devices.list());
        }
    }

    @Override
    public RdmaDevice openDevice(String nameOrNull) throws VerbsException {
        ProviderAvailability availability = availability();
        if (!availability.present()) {
            throw new ProviderUnavailableException("ibverbs provider unavailable: " + availability.reason());
        }
        return IbverbsDevice.open(nameOrNull != null ? nameOrNull : config.defaultDevice(), config);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
