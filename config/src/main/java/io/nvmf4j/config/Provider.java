package io.nvmf4j.config;

/** Which verbs provider the target's rdma ports use ({@code nvmf4j.provider}); tcp ports use plain sockets. */
public enum Provider {
    /** The pure-Java iWARP stack over TCP; works everywhere. */
    SOFTIWARP("softiwarp"),
    /** libibverbs/librdmacm through FFM: real RNICs, rxe, siw. */
    IBVERBS("ibverbs"),
    /** ibverbs when an RDMA device is present, softiwarp otherwise. */
    AUTO("auto");

    private final String jsonName;

    Provider(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    static Provider fromJson(String name) {
        for (Provider p : values()) {
            if (p.jsonName.equals(name)) {
                return p;
            }
        }
        return null;
    }
}
