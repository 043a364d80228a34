"""The table server (SERVER.md): ``ledger serve``. Every seat reaches its campaign from
its own device, authenticated by its token, live, and never shown more than it may see.

``app`` builds the FastAPI application and runs it; ``seating`` finds a request's seat;
``clerk`` does the work that touches the file; ``live`` follows the log for the
streams; ``bodies`` the action bodies; ``pages`` the pages; ``errors`` the replies.
"""
