"""``durak serve``: play Durak in a browser against any agent (needs the ``web`` extra).

* :mod:`durak.web.views`: what the browser is sent, a pure function of the person's own
  observation;
* :mod:`durak.web.settings`: the server's limits and a person's game settings;
* :mod:`durak.web.table`: one game per table, played on its own thread;
* :mod:`durak.web.registry`: the server's tables by id, their cap, idle sweep and log;
* :mod:`durak.web.policy`: the agents a web client may choose;
* :mod:`durak.web.server`: the FastAPI routes and the static page (``static/``);
* :mod:`durak.web.schema`: the OpenAPI description of the routes' answers.

See ``docs/web.md`` for the protocol and deployment.
"""
