from django.urls import path

from web import views

app_name = "web"

urlpatterns = [
    path("", views.home, name="home"),
    path("chat/", views.chat, name="chat"),
    path("chat/new/", views.chat_new, name="chat_new"),
    path("chat/t/<str:thread_id>/", views.chat_thread, name="chat_thread"),
    path("chat/threads/", views.thread_rows, name="thread_rows"),
    path("chat/runs/<str:run_id>/", views.run_row, name="run_row"),
    path("chat/runs/<str:run_id>/export.<str:fmt>", views.run_export, name="run_export"),
    path("chat/archived/", views.archived_threads, name="archived"),
    path("chat/search/", views.search, name="search"),
    path("chat/runs/<str:run_id>/context/", views.run_context, name="run_context"),
    path("help/model/", views.help_model, name="help_model"),
    path("agent/", views.choose_agent, name="choose_agent"),
    path("memory/", views.memory, name="memory"),
    path("costs/", views.costs, name="costs"),
]
