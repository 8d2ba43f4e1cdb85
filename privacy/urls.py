from django.urls import path

from privacy import views

app_name = "privacy"

urlpatterns = [
    path("chat/t/<str:thread_id>/delete/", views.thread_delete_page, name="thread_delete"),
    path("memory/export/", views.export_download, name="export"),
]
